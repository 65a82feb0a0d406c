import { eq } from 'drizzle-orm';
import type { AuthedContext, RequestContext } from '../../core/context.js';
import type { ProcessedImage } from '../../core/uploads.js';
import { AppError, fieldError, notFound } from '../../core/errors.js';
import { requireOwner } from '../../core/ownership.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { pointEwkt } from '../../models/geography.js';
import { stores } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { communityExists, findStore, imageKeysOfStores, listStores, locationPosition, lockStore, slugTaken, storesOwnedBy, userLocationId, type StoreFilters } from './stores.queries.js';
import { serializeStore, type StoreBody } from './stores.serializer.js';
import { isCommunityMember } from '../communities/summaries.js';
import { StagedFiles, deleteFiles, violates } from './uploads.js';

export const SLUG_TAKEN = 'This store identifier is already taken.';
export const STORE_NOT_FOUND = 'Store not found.';
const storeNotFound = () => notFound(STORE_NOT_FOUND);

export interface StoreFields {
  name?: string;
  slug?: string;
  description?: string;
  social_url?: string;
  location?: string | null;
  community?: string | null;
  latitude?: number;
  longitude?: number;
  logo?: ProcessedImage;
  banner?: ProcessedImage;
}

export async function getStore(ctx: RequestContext, id: string): Promise<StoreBody> {
  const store = await findStore(id);
  if (!store) throw storeNotFound();
  return serializeStore(store, ctx);
}

export async function listStoresPage(ctx: RequestContext, input: StoreFilters & { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 50, max: 100 });
  const { count, rows } = await listStores(input, params.limit, params.offset);
  return paginated(ctx, '/api/stores/stores/', params, count, rows.map((s) => serializeStore(s, ctx)), { location: input.location, slug: input.slug, search: input.search });
}

export async function myStores(ctx: AuthedContext): Promise<StoreBody[]> {
  return (await storesOwnedBy(ctx.user.id)).map((s) => serializeStore(s, ctx));
}

/**
 * Where a store is: the location given, else (on create) the owner's; its coordinates are the ones given,
 * else the location's published centre. The owner's own point is never copied: a store's position is public.
 */
async function placement(input: StoreFields, fallbackLocationId: () => Promise<string | null>) {
  const locationId = input.location !== undefined ? input.location : await fallbackLocationId();
  const location = locationId ? await locationPosition(locationId) : null;
  if (locationId && !location) throw fieldError('location', `Invalid pk "${locationId}" - object does not exist.`);
  const coords = input.latitude !== undefined && input.longitude !== undefined ? { latitude: input.latitude, longitude: input.longitude } : location;
  const latitude = coords?.latitude ?? null;
  const longitude = coords?.longitude ?? null;
  return { locationId: locationId ?? null, latitude, longitude, point: latitude !== null && longitude !== null ? pointEwkt(longitude, latitude) : null };
}

const slugError = () => fieldError('slug', SLUG_TAKEN);
const communityError = (id: string) => fieldError('community', `Invalid pk "${id}" - object does not exist.`);
const COMMUNITY_FK = 'stores_community_id_fkey';

export const NOT_A_MEMBER = 'You can only link a store to a community you belong to.';

/** A store may name a community that exists and that its owner belongs to (as posting in it requires). */
async function checkCommunity(id: string | null | undefined, userId: string): Promise<void> {
  if (!id) return;
  if (!(await communityExists(id))) throw communityError(id);
  if (!(await isCommunityMember(id, userId))) throw fieldError('community', NOT_A_MEMBER);
}

export async function createStore(ctx: AuthedContext, input: StoreFields & { name: string; slug: string }): Promise<StoreBody> {
  if (await slugTaken(input.slug)) throw slugError();
  await checkCommunity(input.community, ctx.user.id);
  const place = await placement(input, () => userLocationId(ctx.user.id));
  const files = new StagedFiles();
  let id: string;
  try {
    const logo = input.logo ? await files.put('stores/logos', input.logo) : null;
    const banner = input.banner ? await files.put('stores/banners', input.banner) : null;
    const [row] = await platform.db
      .insert(stores)
      .values({
        ownerId: ctx.user.id,
        name: input.name,
        slug: input.slug,
        description: input.description ?? '',
        socialUrl: input.social_url ?? '',
        communityId: input.community ?? null,
        logo,
        banner,
        ...place,
      })
      .returning({ id: stores.id });
    id = row.id;
  } catch (err) {
    await files.discard();
    // Two creations with one slug at once: the unique index decides, the loser gets the field error.
    if (violates(err, 'stores_slug_key')) throw slugError();
    // The community was deleted between the check and the insert.
    if (violates(err, COMMUNITY_FK)) throw communityError(input.community!);
    throw err;
  }
  return getStore(ctx, id);
}

/** PUT and PATCH: only the fields sent change; `is_verified` is never the owner's to set. */
export async function updateStore(ctx: AuthedContext, id: string, input: StoreFields): Promise<StoreBody> {
  const before = await findStore(id);
  if (!before) throw storeNotFound();
  requireOwner(ctx.user, before.ownerId);
  if (input.slug !== undefined && (await slugTaken(input.slug, id))) throw slugError();
  await checkCommunity(input.community, ctx.user.id);
  const movesPlace = input.location !== undefined || (input.latitude !== undefined && input.longitude !== undefined);
  const place = movesPlace ? await placement(input, async () => before.locationId) : {};
  const files = new StagedFiles();
  const changes: Partial<typeof stores.$inferInsert> = { updatedAt: new Date(), ...place };
  if (input.name !== undefined) changes.name = input.name;
  if (input.slug !== undefined) changes.slug = input.slug;
  if (input.description !== undefined) changes.description = input.description;
  if (input.social_url !== undefined) changes.socialUrl = input.social_url;
  if (input.community !== undefined) changes.communityId = input.community;
  let replaced: Array<string | null> = [];
  try {
    if (input.logo) changes.logo = await files.put('stores/logos', input.logo);
    if (input.banner) changes.banner = await files.put('stores/banners', input.banner);
    replaced = await transaction(platform.db, async (tx) => {
      const locked = await lockStore(tx, id);
      if (!locked) throw storeNotFound();
      await tx.update(stores).set(changes).where(eq(stores.id, id));
      // The files named by the row when it was locked: a concurrent update's upload is not lost track of.
      return [input.logo ? locked.logo : null, input.banner ? locked.banner : null];
    });
  } catch (err) {
    await files.discard();
    if (violates(err, 'stores_slug_key')) throw slugError();
    if (violates(err, COMMUNITY_FK)) throw communityError(input.community!);
    throw err;
  }
  await deleteFiles(replaced);
  return getStore(ctx, id);
}

/** Deletes the store, its products and their images (rows, then files once committed); orders keep their history. */
export async function deleteStore(ctx: AuthedContext, id: string): Promise<void> {
  const files = await transaction(platform.db, async (tx) => {
    const locked = await lockStore(tx, id);
    if (!locked) throw storeNotFound();
    requireOwner(ctx.user, locked.ownerId);
    const images = await imageKeysOfStores([id]);
    await tx.delete(stores).where(eq(stores.id, id));
    return [locked.logo, locked.banner, ...images];
  });
  await deleteFiles(files);
}

/** The store moves to the owner's current location (and its published centre). */
export async function syncStoreLocation(ctx: AuthedContext, id: string): Promise<StoreBody> {
  const store = await findStore(id);
  if (!store) throw storeNotFound();
  requireOwner(ctx.user, store.ownerId, { detail: 'You do not own this store.' });
  const locationId = await userLocationId(ctx.user.id);
  const location = locationId ? await locationPosition(locationId) : null;
  if (!location) throw new AppError(400, { detail: 'You do not have a valid location set.' });
  const point = location.latitude !== null && location.longitude !== null ? pointEwkt(location.longitude, location.latitude) : null;
  await platform.db
    .update(stores)
    .set({ locationId: location.id, latitude: location.latitude, longitude: location.longitude, point, updatedAt: new Date() })
    .where(eq(stores.id, id));
  return getStore(ctx, id);
}

export async function adminUpdateStore(ctx: AuthedContext, id: string, input: { is_verified?: boolean }): Promise<StoreBody> {
  const changes: Partial<typeof stores.$inferInsert> = { updatedAt: new Date() };
  if (input.is_verified !== undefined) changes.isVerified = input.is_verified;
  const updated = await platform.db.update(stores).set(changes).where(eq(stores.id, id)).returning({ id: stores.id });
  if (!updated.length) throw storeNotFound();
  return getStore(ctx, id);
}
