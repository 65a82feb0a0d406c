import { eq, inArray, sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import type { DbOrTx } from '../../platform/db.js';
import { users, locations, type UserRow } from '../../models/index.js';

/** A user row with what its public shape needs (location name; store and communities as their modules land). */
export interface UserWithRelations extends UserRow {
  location: { id: string; name: string } | null;
}

const withLocation = (db: DbOrTx) =>
  db
    .select({ user: users, locationId: locations.id, locationName: locations.name })
    .from(users)
    .leftJoin(locations, eq(users.locationId, locations.id));

type JoinedRow = { user: UserRow; locationId: string | null; locationName: string | null };
const toUser = (r: JoinedRow): UserWithRelations => ({
  ...r.user,
  location: r.locationId ? { id: r.locationId, name: r.locationName ?? '' } : null,
});

export async function findUserById(id: string, db: DbOrTx = platform.db): Promise<UserWithRelations | null> {
  const [row] = await withLocation(db).where(eq(users.id, id)).limit(1);
  return row ? toUser(row) : null;
}

/** Several users in one query, in the order of `ids`. */
export async function findUsersByIds(ids: string[], db: DbOrTx = platform.db): Promise<UserWithRelations[]> {
  if (!ids.length) return [];
  const rows = (await withLocation(db).where(inArray(users.id, ids))).map(toUser);
  const byId = new Map(rows.map((u) => [u.id, u]));
  return ids.map((id) => byId.get(id)).filter((u): u is UserWithRelations => Boolean(u));
}

/** Usernames are unique regardless of case, and looked up the same way. */
export async function findUserByUsername(username: string, db: DbOrTx = platform.db): Promise<UserWithRelations | null> {
  const [row] = await withLocation(db).where(sql`lower(${users.username}) = lower(${username})`).limit(1);
  return row ? toUser(row) : null;
}

export async function findUserByEmail(email: string, db: DbOrTx = platform.db): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  return row ?? null;
}

export async function currentLocationId(userId: string): Promise<string | null> {
  const [row] = await platform.db.select({ locationId: users.locationId }).from(users).where(eq(users.id, userId)).limit(1);
  return row?.locationId ?? null;
}
