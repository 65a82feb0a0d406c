import { eq, inArray, sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import { currentDb, type Db, type DbOrTx } from '../../platform/db.js';
import { users, locations, type UserRow } from '../../models/index.js';
import { notBlockedWith } from '../policy/visibility.js';

/** A user row with what its public shape needs (location name; store and communities as their modules land). */
export interface UserWithRelations extends UserRow {
  location: { id: string; name: string } | null;
  /** The user's first store (stores module), or null. */
  store: { id: string; name: string; description: string } | null;
  /** Communities the user owns, oldest first (`owned_communities`). */
  ownedCommunities: Array<{ id: string; name: string; description: string }>;
}

// The user's oldest store, if any (stores_owner_idx): the user object's `store`.
const firstStore = sql<{ id: string; name: string; description: string } | null>`(SELECT json_build_object('id', s.id, 'name', s.name, 'description', s.description)
  FROM stores s WHERE s.owner_id = ${users.id} ORDER BY s.created_at, s.id LIMIT 1)`;

// One correlated subquery on communities_owner_idx: the user object's owned_communities in the same read.
const ownedCommunitiesJson = sql<Array<{ id: string; name: string; description: string }>>`coalesce((
  SELECT json_agg(json_build_object('id', c.id, 'name', c.name, 'description', c.description) ORDER BY c.created_at, c.id)
  FROM communities c WHERE c.owner_id = ${users.id}), '[]'::json)`;

const withLocation = (db: DbOrTx) =>
  db
    .select({ user: users, locationId: locations.id, locationName: locations.name, store: firstStore, ownedCommunities: ownedCommunitiesJson })
    .from(users)
    .leftJoin(locations, eq(users.locationId, locations.id));

type JoinedRow = {
  user: UserRow;
  locationId: string | null;
  locationName: string | null;
  store: UserWithRelations['store'];
  ownedCommunities: UserWithRelations['ownedCommunities'];
};
const toUser = (r: JoinedRow): UserWithRelations => ({
  ...r.user,
  store: r.store ?? null,
  location: r.locationId ? { id: r.locationId, name: r.locationName ?? '' } : null,
  ownedCommunities: r.ownedCommunities ?? [],
});

/**
 * The profile read runs on every `users.profile` call: its SQL is built once per database handle and sent
 * unnamed (`prepare('')`: pg sends an unnamed statement for an empty name), because a named statement
 * would clash on the embedded database, where every connection shares one session.
 */
const findByIdQueries = new WeakMap<Db, ReturnType<typeof buildFindById>>();
const buildFindById = (db: Db) => withLocation(db).where(eq(users.id, sql.placeholder('id'))).limit(1).prepare('');

export async function findUserById(id: string, db: DbOrTx = currentDb()): Promise<UserWithRelations | null> {
  if (db !== platform.db) {
    const [row] = await withLocation(db).where(eq(users.id, id)).limit(1);
    return row ? toUser(row) : null;
  }
  let query = findByIdQueries.get(db);
  if (!query) findByIdQueries.set(db, (query = buildFindById(db)));
  const [row] = await query.execute({ id });
  return row ? toUser(row) : null;
}

/** The SQL text of the profile read and its parameters for a user id (the kernel benchmark's bare route runs it). */
export function profileQuery(id: string): { text: string; values: unknown[] } {
  const built = withLocation(platform.db).where(eq(users.id, id)).limit(1).toSQL();
  return { text: built.sql, values: built.params };
}

/** Several users in one query, in the order of `ids`. */
export async function findUsersByIds(ids: string[], db: DbOrTx = currentDb()): Promise<UserWithRelations[]> {
  if (!ids.length) return [];
  const rows = (await withLocation(db).where(inArray(users.id, ids))).map(toUser);
  const byId = new Map(rows.map((u) => [u.id, u]));
  return ids.map((id) => byId.get(id)).filter((u): u is UserWithRelations => Boolean(u));
}

/** Usernames are unique regardless of case, and looked up the same way. */
export async function findUserByUsername(username: string, db: DbOrTx = currentDb()): Promise<UserWithRelations | null> {
  const [row] = await withLocation(db).where(sql`lower(${users.username}) = lower(${username})`).limit(1);
  return row ? toUser(row) : null;
}

export async function findUserByEmail(email: string, db: DbOrTx = currentDb()): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  return row ?? null;
}

export async function currentLocationId(userId: string): Promise<string | null> {
  const [row] = await currentDb().select({ locationId: users.locationId }).from(users).where(eq(users.id, userId)).limit(1);
  return row?.locationId ?? null;
}

/**
 * Other active users within `radiusM` of `origin`, measured to the published grid cell of their own point
 * (`public_point`) or, for users who never sent coordinates, to their location's published centre (or point).
 * Never to an exact point: the caller chooses its own point freely, and exact distances would let it find
 * where the edge of the circle, or the order of two users, flips, and so trilaterate anyone. Within one cell
 * users tie and are ordered by id. Written as two branches so each can use its
 * GiST index: one expression mixing both (coalesce over a join) can use none, and scanned every user
 * (1.9 s per query on the 1,000,000-user bench data; the branches take about 16 ms for a page and
 * 330 ms for the count around a city centre). Distances
 * are on the sphere, as `<->` measures them, so the index order and the final order agree.
 */
function nearbyCandidates(meId: string, origin: string, radiusM: number, limitEach: number | null) {
  const o = sql`${origin}::geography`;
  const ownPointFilter = (alias: string) =>
    sql`${sql.raw(alias)}.point IS NOT NULL AND ${sql.raw(alias)}.id <> ${meId} AND ${sql.raw(alias)}.is_active AND ${sql.raw(alias)}.location_id IS NOT NULL
      AND ${notBlockedWith(meId, sql.raw(`${alias}.id`))}`;
  // For a page, the first branch needs only the `limitEach` nearest, which KNN (`<->` alone) finds without
  // reading the rest; its distance becomes the radius, so users tied with the last one are all included and
  // the final order (distance, id) is the same whatever page is asked for.
  const ownPointRadius =
    limitEach === null
      ? sql`${radiusM}`
      : sql`LEAST(${radiusM}, (SELECT max(d) + 0.001 FROM (SELECT k.public_point <-> ${o} AS d FROM users k
          WHERE ${ownPointFilter('k')} AND ST_DWithin(k.public_point, ${o}, ${radiusM}, false) ORDER BY k.public_point <-> ${o} LIMIT ${limitEach}) nearest))`;
  const locationLimit = limitEach === null ? sql`` : sql`ORDER BY distance, u.id LIMIT ${limitEach}`;
  return sql`
    (SELECT u.id, ST_Distance(u.public_point, ${o}, false) AS distance
       FROM users u
      WHERE ${ownPointFilter('u')} AND ST_DWithin(u.public_point, ${o}, ${ownPointRadius}, false))
    UNION ALL
    (SELECT u.id, ST_Distance(coalesce(l.center, l.point), ${o}, false) AS distance
       FROM locations l JOIN users u ON u.location_id = l.id
      WHERE u.point IS NULL AND u.id <> ${meId} AND u.is_active AND ${notBlockedWith(meId, sql`u.id`)}
        AND (ST_DWithin(l.center, ${o}, ${radiusM}, false) OR (l.center IS NULL AND ST_DWithin(l.point, ${o}, ${radiusM}, false)))
      ${locationLimit})`;
}

export async function countNearbyUsers(meId: string, origin: string, radiusM: number): Promise<number> {
  const { rows } = await platform.db.execute<{ count: number }>(sql`SELECT count(*)::int AS count FROM (${nearbyCandidates(meId, origin, radiusM, null)}) c`);
  return rows[0].count;
}

/** One page of nearby user ids, nearest first (ties by id). Each branch needs at most offset + limit rows. */
export async function nearbyUserIds(meId: string, origin: string, radiusM: number, limit: number, offset: number): Promise<string[]> {
  const { rows } = await platform.db.execute<{ id: string }>(
    sql`SELECT id FROM (${nearbyCandidates(meId, origin, radiusM, offset + limit)}) c ORDER BY distance, id LIMIT ${limit} OFFSET ${offset}`,
  );
  return rows.map((r) => r.id);
}
