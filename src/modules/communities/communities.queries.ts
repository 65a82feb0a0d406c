import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { currentDb, type DbOrTx } from '../../platform/db.js';
import { notBlockedWith } from '../policy/visibility.js';
import { communities, communityCategories, communityCategoryGroups, communityMembers, locations, users, type CommunityRow, type CommunityRole } from '../../models/index.js';

/** A community with what its body shows: category, location and owner (one query for any number of rows). */
export interface CommunityWithRelations extends CommunityRow {
  category: { id: string; name: string };
  location: { id: string; name: string } | null;
  owner: { id: string; username: string; displayName: string; profilePicture: string | null };
}

const withRelations = (db: DbOrTx) =>
  db
    .select({
      community: communities,
      categoryName: communityCategories.name,
      locationName: locations.name,
      ownerUsername: users.username,
      ownerDisplayName: users.displayName,
      ownerPicture: users.profilePicture,
    })
    .from(communities)
    .innerJoin(communityCategories, eq(communityCategories.id, communities.categoryId))
    .innerJoin(users, eq(users.id, communities.ownerId))
    .leftJoin(locations, eq(locations.id, communities.locationId));

type Joined = Awaited<ReturnType<ReturnType<typeof withRelations>['execute']>>[number];
const toCommunity = (r: Joined): CommunityWithRelations => ({
  ...r.community,
  category: { id: r.community.categoryId, name: r.categoryName },
  location: r.community.locationId ? { id: r.community.locationId, name: r.locationName ?? '' } : null,
  owner: { id: r.community.ownerId, username: r.ownerUsername, displayName: r.ownerDisplayName, profilePicture: r.ownerPicture },
});

export async function findCommunity(id: string, db: DbOrTx = currentDb()): Promise<CommunityWithRelations | null> {
  const [row] = await withRelations(db).where(eq(communities.id, id)).limit(1);
  return row ? toCommunity(row) : null;
}

/** Several communities in one query (any order). */
export async function findCommunitiesByIds(ids: readonly string[], db: DbOrTx = currentDb()): Promise<CommunityWithRelations[]> {
  if (!ids.length) return [];
  return (await withRelations(db).where(inArray(communities.id, [...ids]))).map(toCommunity);
}

export interface CommunityFilters {
  category?: string;
  location?: string;
  search?: string;
}

function filterConditions(f: CommunityFilters): SQL | undefined {
  const conditions: SQL[] = [];
  if (f.category) conditions.push(eq(communities.categoryId, f.category));
  if (f.location) conditions.push(eq(communities.locationId, f.location));
  if (f.search) {
    // Case-insensitive substring of the name or the description (LIKE wildcards in the query are literal).
    const pattern = `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(sql`(${communities.name} ILIKE ${pattern} OR ${communities.description} ILIKE ${pattern})`);
  }
  return conditions.length ? and(...conditions) : undefined;
}

/** A page of communities, most members first (then newest). */
export async function listCommunities(f: CommunityFilters, limit: number, offset: number): Promise<{ count: number; rows: CommunityWithRelations[] }> {
  const db = currentDb();
  const where = filterConditions(f);
  const [{ count }] = await db.select({ count: sql<number>`count(*)::int` }).from(communities).where(where);
  const rows = await withRelations(db)
    .where(where)
    .orderBy(desc(communities.membersCount), desc(communities.createdAt), asc(communities.id))
    .limit(limit)
    .offset(offset);
  return { count, rows: rows.map(toCommunity) };
}

/** Which of these communities `userId` belongs to (one query). */
export async function membershipsOf(userId: string, communityIds: readonly string[], db: DbOrTx = currentDb()): Promise<Set<string>> {
  if (!communityIds.length) return new Set();
  const rows = await db
    .select({ id: communityMembers.communityId })
    .from(communityMembers)
    .where(and(eq(communityMembers.userId, userId), inArray(communityMembers.communityId, [...communityIds])));
  return new Set(rows.map((r) => r.id));
}

export interface CommunityMember {
  user: { id: string; username: string; displayName: string; profilePicture: string | null };
  role: CommunityRole;
  joinedAt: Date;
}

/** Members as `viewerId` may list them: never anyone in a block with the viewer, either way (DESIGN.md section 9). */
export async function listMembers(communityId: string, viewerId: string | null, limit: number, offset: number): Promise<{ count: number; rows: CommunityMember[] }> {
  const db = currentDb();
  const listed = and(eq(communityMembers.communityId, communityId), notBlockedWith(viewerId, sql`${communityMembers.userId}`));
  const [{ count }] = await db.select({ count: sql<number>`count(*)::int` }).from(communityMembers).where(listed);
  const rows = await db
    .select({ id: users.id, username: users.username, displayName: users.displayName, profilePicture: users.profilePicture, role: communityMembers.role, joinedAt: communityMembers.joinedAt })
    .from(communityMembers)
    .innerJoin(users, eq(users.id, communityMembers.userId))
    .where(listed)
    .orderBy(asc(communityMembers.joinedAt), asc(communityMembers.userId))
    .limit(limit)
    .offset(offset);
  return {
    count,
    rows: rows.map((r) => ({ user: { id: r.id, username: r.username, displayName: r.displayName, profilePicture: r.profilePicture }, role: r.role, joinedAt: r.joinedAt })),
  };
}

export async function listCategories() {
  return currentDb()
    .select({ id: communityCategories.id, name: communityCategories.name, groupId: communityCategoryGroups.id, groupName: communityCategoryGroups.name })
    .from(communityCategories)
    .innerJoin(communityCategoryGroups, eq(communityCategoryGroups.id, communityCategories.groupId))
    .orderBy(asc(communityCategoryGroups.position), asc(communityCategories.position), asc(communityCategories.name));
}

export async function categoryExists(id: string, db: DbOrTx = currentDb()): Promise<boolean> {
  const [row] = await db.select({ id: communityCategories.id }).from(communityCategories).where(eq(communityCategories.id, id)).limit(1);
  return Boolean(row);
}

export async function isMember(communityId: string, userId: string, db: DbOrTx = currentDb()): Promise<boolean> {
  const [row] = await db
    .select({ one: sql<number>`1` })
    .from(communityMembers)
    .where(and(eq(communityMembers.communityId, communityId), eq(communityMembers.userId, userId)))
    .limit(1);
  return Boolean(row);
}
