import { and, eq, or, sql } from 'drizzle-orm';
import type { AuthedContext, RequestContext } from '../../core/context.js';
import type { ProcessedImage } from '../../core/uploads.js';
import { AppError, notFound } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { locations, users, type UserRow } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { countNearbyUsers, findUserById, findUserByUsername, findUsersByIds, nearbyUserIds } from './users.queries.js';
import { serializeUser, serializeUserSummary, type UserBody } from './users.serializer.js';
import { moveUserToAddress, type Hierarchy } from '../locations/membership.service.js';
import { notBlockedWith } from '../policy/visibility.js';

export async function getProfile(ctx: AuthedContext): Promise<UserBody> {
  const user = await findUserById(ctx.user.id);
  if (!user) throw notFound();
  return serializeUser(user, ctx);
}

export async function getPublicProfile(username: string, ctx: RequestContext): Promise<UserBody> {
  const user = await findUserByUsername(username);
  if (!user || !user.isActive) throw notFound();
  return serializeUser(user, ctx);
}

export interface ProfileUpdate {
  display_name?: string;
  bio?: string;
  website?: string;
  relationship_status?: UserRow['relationshipStatus'];
  profile_picture?: ProcessedImage;
  banner?: ProcessedImage;
  discoverable?: boolean;
  location?: { country?: string | null; state?: string | null; city?: string | null; latitude?: number; longitude?: number };
}

/** PUT .../profile/update/ and PATCH .../profile/: only the fields sent change; is_verified never does. */
export async function updateProfile(ctx: AuthedContext, input: ProfileUpdate): Promise<UserBody> {
  const uploads: string[] = [];
  const put = async (folder: string, f: ProcessedImage) => {
    const key = await platform.storage.put(folder, f);
    uploads.push(key);
    return key;
  };
  const before = await findUserById(ctx.user.id);
  if (!before) throw notFound();
  const changes: Partial<typeof users.$inferInsert> = { updatedAt: new Date() };
  if (input.display_name !== undefined) changes.displayName = input.display_name;
  if (input.bio !== undefined) changes.bio = input.bio;
  if (input.website !== undefined) changes.website = input.website;
  if (input.relationship_status !== undefined) changes.relationshipStatus = input.relationship_status;
  if (input.discoverable !== undefined) changes.discoverable = input.discoverable;
  try {
    if (input.profile_picture) changes.profilePicture = await put('profile_pictures', input.profile_picture);
    if (input.banner) changes.banner = await put('users/banners', input.banner);
    await transaction(platform.db, async (tx, events) => {
      // The user row is the first lock of a location move (membership.service.ts), and this update takes it. An
      // account deletion holds it from its start: this waits, and finds no row once the account is gone. Then the
      // files just written belong to nobody, and no step of that deletion saw them: 404, and the catch below removes
      // them (docs/modules/leaving.md, "Concurrency").
      const updated = await tx.update(users).set(changes).where(eq(users.id, ctx.user.id)).returning({ id: users.id });
      if (!updated.length) throw notFound();
      if (input.location) {
        const { latitude, longitude, ...levels } = input.location;
        const coords = latitude !== undefined && longitude !== undefined ? { latitude, longitude } : undefined;
        await moveUserToAddress(tx, events, ctx.user.id, levels as Hierarchy, coords);
      }
    });
  } catch (err) {
    await Promise.all(uploads.map((k) => platform.storage.delete(k).catch(() => undefined)));
    throw err;
  }
  // Replaced files are removed only once the new ones are committed.
  for (const old of [input.profile_picture && before.profilePicture, input.banner && before.banner]) {
    if (old) await platform.storage.delete(old).catch(() => undefined);
  }
  return getProfile(ctx);
}

export async function updateLocation(ctx: AuthedContext, input: Hierarchy & { latitude?: number; longitude?: number }) {
  const { latitude, longitude, ...levels } = input;
  const coords = latitude !== undefined && longitude !== undefined ? { latitude, longitude } : undefined;
  const location = await transaction(platform.db, (tx, events) => moveUserToAddress(tx, events, ctx.user.id, levels, coords));
  return { message: 'Location updated successfully', location };
}

export async function searchUsers(ctx: AuthedContext, query: string | undefined) {
  const q = query?.trim();
  if (!q) throw new AppError(400, { error: 'Query parameter is required' });
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await platform.db
    .select({ id: users.id, username: users.username, displayName: users.displayName, profilePicture: users.profilePicture })
    .from(users)
    // Not discoverable (DESIGN.md section 11): not found by name, here as in search.query.
    .where(and(eq(users.isActive, true), eq(users.discoverable, true), or(sql`${users.username} ILIKE ${pattern}`, sql`${users.displayName} ILIKE ${pattern}`), notBlockedWith(ctx.user.id, sql`${users.id}`)))
    // Exact and prefix matches first, then the closest by trigram similarity.
    .orderBy(sql`(lower(${users.username}) = lower(${q})) DESC`, sql`(${users.username} ILIKE ${q.replace(/[\\%_]/g, (c) => `\\${c}`) + '%'}) DESC`, sql`greatest(similarity(${users.username}, ${q}), similarity(${users.displayName}, ${q})) DESC`, users.username)
    .limit(50);
  return rows.map((r) => serializeUserSummary(r, ctx));
}

const NEARBY_RADIUS_M = 100_000;

/** Users within 100 km of the caller, nearest first. The caller's own point, else its location's centre. */
export async function nearbyUsers(ctx: AuthedContext, input: { page?: number; page_size?: number }) {
  const me = await findUserById(ctx.user.id);
  if (!me?.locationId) throw new AppError(400, { error: 'Location Required', message: 'Set your location to see people nearby.', action: 'update_location' });
  const [origin] = await platform.db
    // Published cells only, on both ends (users.public_point, a location's published centre): see users.queries.ts.
    .select({ point: sql<string | null>`coalesce(${users.publicPoint}, ${locations.center}, ${locations.point})` })
    .from(users)
    .leftJoin(locations, eq(users.locationId, locations.id))
    .where(eq(users.id, ctx.user.id));
  const params = pageParams(input, { size: 10, max: 50 });
  if (!origin?.point) return paginated(ctx, '/api/users/nearby-users/', params, 0, []);
  const count = await countNearbyUsers(ctx.user.id, origin.point, NEARBY_RADIUS_M);
  const ids = count ? await nearbyUserIds(ctx.user.id, origin.point, NEARBY_RADIUS_M, params.limit, params.offset) : [];
  const results = (await findUsersByIds(ids)).map((u) => serializeUser(u, ctx));
  return paginated(ctx, '/api/users/nearby-users/', params, count, results);
}
