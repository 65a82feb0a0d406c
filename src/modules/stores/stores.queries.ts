import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { currentDb, type DbOrTx, type Tx } from '../../platform/db.js';
import { communities, locations, stores, users } from '../../models/index.js';
import type { StoreWithRelations } from './stores.serializer.js';

const selectStores = (db: DbOrTx) =>
  db
    .select({ store: stores, ownerUsername: users.username, ownerDisplayName: users.displayName, locationName: locations.name, communityName: communities.name })
    .from(stores)
    .innerJoin(users, eq(users.id, stores.ownerId))
    .leftJoin(locations, eq(locations.id, stores.locationId))
    .leftJoin(communities, eq(communities.id, stores.communityId));

type Joined = { store: typeof stores.$inferSelect; ownerUsername: string; ownerDisplayName: string; locationName: string | null; communityName: string | null };
const toStore = (r: Joined): StoreWithRelations => ({
  ...r.store,
  owner: { username: r.ownerUsername, displayName: r.ownerDisplayName },
  location: r.store.locationId ? { id: r.store.locationId, name: r.locationName ?? '' } : null,
  community: r.store.communityId ? { id: r.store.communityId, name: r.communityName ?? '' } : null,
});

/** Whether a community exists (a store may name one). */
export async function communityExists(id: string, db: DbOrTx = currentDb()): Promise<boolean> {
  const [row] = await db.select({ id: communities.id }).from(communities).where(eq(communities.id, id)).limit(1);
  return Boolean(row);
}

export async function findStore(id: string, db: DbOrTx = currentDb()): Promise<StoreWithRelations | null> {
  const [row] = await selectStores(db).where(eq(stores.id, id)).limit(1);
  return row ? toStore(row) : null;
}

/** Stores by id, as `findStore` reads one, in one statement (unknown ids are left out). */
export async function findStoresByIds(ids: readonly string[], db: DbOrTx = currentDb()): Promise<StoreWithRelations[]> {
  if (!ids.length) return [];
  return (await selectStores(db).where(inArray(stores.id, [...ids]))).map(toStore);
}

/** The store row locked until the transaction ends (updates of one store run one at a time). */
export async function lockStore(tx: Tx, id: string) {
  const [row] = await tx.select().from(stores).where(eq(stores.id, id)).for('update');
  return row ?? null;
}

export async function storesOwnedBy(ownerId: string): Promise<StoreWithRelations[]> {
  return (await selectStores(currentDb()).where(eq(stores.ownerId, ownerId)).orderBy(stores.createdAt, stores.id)).map(toStore);
}

export interface StoreFilters {
  location?: string;
  slug?: string;
  search?: string;
}

export const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function storeFilters(f: StoreFilters): SQL | undefined {
  const where: SQL[] = [];
  if (f.location) where.push(eq(stores.locationId, f.location));
  if (f.slug) where.push(sql`lower(${stores.slug}) = lower(${f.slug})`);
  if (f.search) where.push(sql`(${stores.name} ILIKE ${likePattern(f.search)} OR ${stores.description} ILIKE ${likePattern(f.search)})`);
  return where.length ? and(...where) : undefined;
}

/** One page of stores, newest first, and the count of all that match. */
export async function listStores(f: StoreFilters, limit: number, offset: number): Promise<{ count: number; rows: StoreWithRelations[] }> {
  const db = currentDb();
  const where = storeFilters(f);
  const [{ count }] = await db.select({ count: sql<number>`count(*)::int` }).from(stores).where(where);
  const rows = count ? await selectStores(db).where(where).orderBy(desc(stores.createdAt), desc(stores.id)).limit(limit).offset(offset) : [];
  return { count, rows: rows.map(toStore) };
}

export async function slugTaken(slug: string, exceptId?: string): Promise<boolean> {
  const rows = await currentDb()
    .select({ id: stores.id })
    .from(stores)
    .where(and(sql`lower(${stores.slug}) = lower(${slug})`, exceptId ? sql`${stores.id} <> ${exceptId}` : undefined))
    .limit(1);
  return rows.length > 0;
}

/** The published position of a location: its published centre (a grid cell), else its published point. */
export async function locationPosition(id: string): Promise<{ id: string; latitude: number | null; longitude: number | null } | null> {
  const [row] = await currentDb()
    .select({ id: locations.id, latitude: sql<number | null>`coalesce(${locations.centerLatitude}, ${locations.latitude})`, longitude: sql<number | null>`coalesce(${locations.centerLongitude}, ${locations.longitude})` })
    .from(locations)
    .where(eq(locations.id, id))
    .limit(1);
  return row ?? null;
}

export async function userLocationId(userId: string): Promise<string | null> {
  const [row] = await currentDb().select({ locationId: users.locationId }).from(users).where(eq(users.id, userId)).limit(1);
  return row?.locationId ?? null;
}

/** Storage keys of every product image of these stores (deleted from storage once the stores are gone). */
export async function imageKeysOfStores(storeIds: string[]): Promise<string[]> {
  if (!storeIds.length) return [];
  const { rows } = await currentDb().execute<{ image: string }>(
    sql`SELECT i.image FROM product_images i JOIN products p ON p.id = i.product_id WHERE p.store_id = ANY(${sql.param(storeIds)}::uuid[])`,
  );
  return rows.map((r) => r.image);
}

