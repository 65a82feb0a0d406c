import { and, eq, sql } from 'drizzle-orm';
import type { AuthedContext, RequestContext } from '../../core/context.js';
import type { ProcessedImage } from '../../core/uploads.js';
import { AppError, notFound } from '../../core/errors.js';
import { requireOwner } from '../../core/ownership.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { communities, communityMembers, locations } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { currentDb, transaction, type Tx } from '../../platform/db.js';
import type { PendingEvents } from '../../core/events.js';
import { categoryExists, findCommunity, isMember, listCategories, listCommunities, listMembers, membershipsOf, type CommunityFilters } from './communities.queries.js';
import { serializeCommunity, serializeMember, type CommunityBody } from './communities.serializer.js';
import { postScopeColumns, recordDeletionsFrom, recordFormerMembers } from '../deletions/deletions.service.js';
import '../deletions/deletions.events.js';
import './communities.events.js';

const NAME_TAKEN = 'A community with this name already exists.';
const OWNER_CANNOT_LEAVE = 'The owner cannot leave the community; delete it instead.';

/**
 * A deleted community's posts pushed one by one as `post:deleted`, newest first: what screens most likely show.
 * Older ones reach clients through `community:deleted` and realtime.sync's `deleted`; the bound keeps one
 * deletion from flooding the adapter.
 */
export const COMMUNITY_POST_PUSH_LIMIT = 1000;

const isUniqueViolation = (err: unknown) =>
  (err as { code?: string }).code === '23505' || (err as { cause?: { code?: string } }).cause?.code === '23505';

async function nameTaken(name: string, exceptId?: string): Promise<boolean> {
  const [row] = await currentDb()
    .select({ id: communities.id })
    .from(communities)
    .where(and(sql`lower(${communities.name}) = lower(${name})`, exceptId ? sql`${communities.id} <> ${exceptId}` : undefined))
    .limit(1);
  return Boolean(row);
}

async function locationExists(id: string): Promise<boolean> {
  const [row] = await currentDb().select({ id: locations.id }).from(locations).where(eq(locations.id, id)).limit(1);
  return Boolean(row);
}

export interface CommunityInput {
  name?: string;
  description?: string;
  category?: string;
  location?: string | null;
  avatar?: ProcessedImage;
  banner?: ProcessedImage;
}

/** Every field error at once (names, category, location), before any file is stored or row written. */
async function checkReferences(input: CommunityInput, exceptId?: string): Promise<void> {
  const errors: Record<string, string[]> = {};
  if (input.name !== undefined && (await nameTaken(input.name, exceptId))) errors.name = [NAME_TAKEN];
  if (input.category !== undefined && !(await categoryExists(input.category))) errors.category = [`Invalid pk "${input.category}" - object does not exist.`];
  if (input.location && !(await locationExists(input.location))) errors.location = [`Invalid pk "${input.location}" - object does not exist.`];
  if (Object.keys(errors).length) throw new AppError(400, errors);
}

/** Stores the uploaded images; on failure of what follows, `discard` removes them again. */
async function storeImages(input: CommunityInput) {
  const stored: string[] = [];
  const put = async (folder: string, f: ProcessedImage) => {
    const key = await platform.storage.put(folder, f);
    stored.push(key);
    return key;
  };
  try {
    const avatar = input.avatar ? await put('communities/avatars', input.avatar) : undefined;
    const banner = input.banner ? await put('communities/banners', input.banner) : undefined;
    return { avatar, banner, discard: () => Promise.all(stored.map((k) => platform.storage.delete(k).catch(() => undefined))) };
  } catch (err) {
    await Promise.all(stored.map((k) => platform.storage.delete(k).catch(() => undefined)));
    throw err;
  }
}

async function communityBody(id: string, ctx: RequestContext): Promise<CommunityBody> {
  const community = await findCommunity(id);
  if (!community) throw notFound();
  const member = ctx.user ? await isMember(id, ctx.user.id) : false;
  return serializeCommunity(community, ctx, member);
}

/** The creator becomes owner and first member, in the same transaction as the community. */
export async function createCommunity(ctx: AuthedContext, input: CommunityInput & { name: string; category: string }): Promise<CommunityBody> {
  await checkReferences(input);
  const images = await storeImages(input);
  let id: string;
  try {
    id = await transaction(platform.db, async (tx) => {
      const [row] = await tx
        .insert(communities)
        .values({
          name: input.name,
          description: input.description ?? '',
          categoryId: input.category,
          locationId: input.location ?? null,
          avatar: images.avatar ?? null,
          banner: images.banner ?? null,
          ownerId: ctx.user.id,
          membersCount: 1,
        })
        .returning({ id: communities.id });
      await tx.insert(communityMembers).values({ communityId: row.id, userId: ctx.user.id, role: 'owner' });
      return row.id;
    });
  } catch (err) {
    await images.discard();
    // Two creations racing for one name: the unique index decides, the loser gets the field error.
    if (isUniqueViolation(err)) throw new AppError(400, { name: [NAME_TAKEN] });
    throw err;
  }
  return communityBody(id, ctx);
}

export async function getCommunity(ctx: RequestContext, id: string): Promise<CommunityBody> {
  return communityBody(id, ctx);
}

export async function listCommunitiesPage(ctx: RequestContext, input: CommunityFilters & { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const filters: CommunityFilters = { category: input.category, location: input.location, search: input.search?.trim() || undefined };
  const { count, rows } = await listCommunities(filters, params.limit, params.offset);
  const mine = ctx.user ? await membershipsOf(ctx.user.id, rows.map((r) => r.id)) : new Set<string>();
  return paginated(
    ctx,
    '/api/communities/communities/',
    params,
    count,
    rows.map((c) => serializeCommunity(c, ctx, mine.has(c.id))),
    { category: filters.category, location: filters.location, search: filters.search },
  );
}

/** Owner only (others 403); only the fields sent change. Replaced images are deleted after the commit. */
export async function updateCommunity(ctx: AuthedContext, id: string, input: CommunityInput): Promise<CommunityBody> {
  const before = await findCommunity(id);
  if (!before) throw notFound();
  requireOwner(ctx.user, before.ownerId);
  await checkReferences(input, id);
  const images = await storeImages(input);
  const changes: Partial<typeof communities.$inferInsert> = { updatedAt: new Date() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (input.category !== undefined) changes.categoryId = input.category;
  if (input.location !== undefined) changes.locationId = input.location;
  if (images.avatar) changes.avatar = images.avatar;
  if (images.banner) changes.banner = images.banner;
  let replaced: Array<string | null> = [];
  try {
    replaced = await transaction(platform.db, async (tx) => {
      // NO KEY UPDATE: two updates replacing the avatar queue here, so each deletes the file the row named
      // when it got the lock (none is orphaned); joins and leaves (KEY SHARE) are not blocked.
      const [locked] = await tx
        .select({ avatar: communities.avatar, banner: communities.banner })
        .from(communities)
        .where(and(eq(communities.id, id), eq(communities.ownerId, ctx.user.id)))
        .for('no key update');
      if (!locked) throw notFound();
      await tx.update(communities).set(changes).where(eq(communities.id, id));
      return [images.avatar ? locked.avatar : null, images.banner ? locked.banner : null];
    });
  } catch (err) {
    await images.discard();
    if (isUniqueViolation(err)) throw new AppError(400, { name: [NAME_TAKEN] });
    throw err;
  }
  await deleteStoredFiles(replaced);
  return communityBody(id, ctx);
}

/**
 * Owner only. The row goes, and with it (ON DELETE CASCADE) its memberships and the posts made in it; the files
 * of those posts (images, audio) and the community's own pictures are deleted from storage once that committed
 * (`removeCommunities`).
 */
export async function deleteCommunity(ctx: AuthedContext, id: string): Promise<void> {
  const community = await findCommunity(id);
  if (!community) throw notFound();
  requireOwner(ctx.user, community.ownerId);
  const files = await transaction(platform.db, async (tx, events) => {
    const [locked] = await tx
      .select({ id: communities.id })
      .from(communities)
      .where(and(eq(communities.id, id), eq(communities.ownerId, ctx.user.id)))
      .for('update');
    if (!locked) throw notFound();
    return removeCommunities(tx, events, [id]);
  });
  await deleteStoredFiles(files);
}

/**
 * Removes communities in the caller's transaction (an owner's delete, an account deletion), and answers the stored
 * files that named them (their pictures, their posts' images and audio), for the caller to delete once committed.
 * Each post gets a tombstone and the members are remembered, so that a member's next realtime.sync lists the posts
 * in `deleted`; `post:deleted` is pushed for the newest COMMUNITY_POST_PUSH_LIMIT posts of each, then
 * `community:deleted`, and every socket leaves the community's room. One statement per kind of row, whatever the
 * number of communities or posts.
 */
export async function removeCommunities(tx: Tx, events: PendingEvents, ids: readonly string[]): Promise<string[]> {
  if (!ids.length) return [];
  const list = sql`${sql.param([...ids])}::uuid[]`;
  // Locked first: the communities cannot gain posts or post files meanwhile (a new post's insert waits for this lock).
  const { rows: pictures } = await tx.execute<{ avatar: string | null; banner: string | null }>(sql`
    SELECT avatar, banner FROM communities WHERE id = ANY(${list}) ORDER BY id FOR UPDATE`);
  const { rows } = await tx.execute<{ file: string }>(sql`
    SELECT m.file FROM post_media m JOIN posts p ON p.id = m.post_id WHERE p.community_id = ANY(${list})
    UNION ALL
    SELECT a.file FROM post_audio a JOIN posts p ON p.id = a.post_id WHERE p.community_id = ANY(${list})`);
  await recordDeletionsFrom(tx, sql`
    SELECT 'post', p.id, p.user_id, ${postScopeColumns('p')}, p.id, NULL::uuid FROM posts p WHERE p.community_id = ANY(${list})`);
  const { rows: pushed } = await tx.execute<{ id: string; community_id: string }>(sql`
    SELECT id, community_id FROM (
      SELECT id, community_id, row_number() OVER (PARTITION BY community_id ORDER BY created_at DESC, id DESC) AS n
      FROM posts WHERE community_id = ANY(${list})) newest
    WHERE n <= ${COMMUNITY_POST_PUSH_LIMIT}
    ORDER BY community_id, n`);
  for (const id of ids) await recordFormerMembers(tx, id);
  await tx.execute(sql`DELETE FROM communities WHERE id = ANY(${list})`);
  for (const post of pushed) events.add('post.deleted', { postId: post.id, locationId: null, communityId: post.community_id });
  for (const id of ids) events.add('community.deleted', { communityId: id });
  return [...pictures.flatMap((p) => [p.avatar, p.banner]), ...rows.map((r) => r.file)].filter((k): k is string => Boolean(k));
}

/** Best effort, after the commit: a file left behind costs storage, not correctness (no row names it). */
async function deleteStoredFiles(keys: Array<string | null>): Promise<void> {
  await Promise.all(keys.filter((k): k is string => Boolean(k)).map((k) => platform.storage.delete(k).catch(() => undefined)));
}

/**
 * Joining twice is not an error. members_count stays exact under concurrency: the membership insert and a
 * single-statement increment share a transaction, and the increment happens only when a row was inserted.
 * FOR KEY SHARE keeps the community from being deleted meanwhile without blocking other joins' increments.
 */
export async function joinCommunity(ctx: AuthedContext, id: string): Promise<{ message: string }> {
  return transaction(platform.db, async (tx) => {
    const [community] = await tx.select({ id: communities.id, name: communities.name }).from(communities).where(eq(communities.id, id)).for('key share');
    if (!community) throw notFound();
    const inserted = await tx.insert(communityMembers).values({ communityId: id, userId: ctx.user.id, role: 'member' }).onConflictDoNothing().returning({ userId: communityMembers.userId });
    if (!inserted.length) return { message: `You are already a member of ${community.name}.` };
    await tx.update(communities).set({ membersCount: sql`${communities.membersCount} + 1` }).where(eq(communities.id, id));
    return { message: `You have joined ${community.name}.` };
  });
}

/** Leaving when not a member is not an error; the owner cannot leave (400) while owning the community. */
export async function leaveCommunity(ctx: AuthedContext, id: string): Promise<{ message: string }> {
  return transaction(platform.db, async (tx) => {
    const [community] = await tx
      .select({ id: communities.id, name: communities.name, ownerId: communities.ownerId })
      .from(communities)
      .where(eq(communities.id, id))
      .for('key share');
    if (!community) throw notFound();
    if (community.ownerId === ctx.user.id) throw new AppError(400, { detail: OWNER_CANNOT_LEAVE });
    const deleted = await tx
      .delete(communityMembers)
      .where(and(eq(communityMembers.communityId, id), eq(communityMembers.userId, ctx.user.id)))
      .returning({ userId: communityMembers.userId });
    if (!deleted.length) return { message: `You are not a member of ${community.name}.` };
    await tx.update(communities).set({ membersCount: sql`${communities.membersCount} - 1` }).where(eq(communities.id, id));
    return { message: `You have left ${community.name}.` };
  });
}

export async function listCommunityMembers(ctx: RequestContext, id: string, input: { page?: number; page_size?: number }) {
  if (!(await findCommunity(id))) throw notFound();
  const params = pageParams(input, { size: 20, max: 100 });
  const { count, rows } = await listMembers(id, ctx.user?.id ?? null, params.limit, params.offset);
  return paginated(ctx, `/api/communities/communities/${id}/members/`, params, count, rows.map((m) => serializeMember(m, ctx)));
}

export async function listCommunityCategories() {
  const rows = await listCategories();
  return rows.map((r) => ({ id: r.id, name: r.name, group: { id: r.groupId, name: r.groupName } }));
}
