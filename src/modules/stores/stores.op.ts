import { z } from 'zod';
import { created, defineOperation, noContent, ok } from '../../core/operation.js';
import { zBool, zOptionalText, zPage, zPageSize, zUuid } from '../../core/validation.js';
import { imageField, zImageFile } from '../../core/uploads.js';
import { READS_PER_IP, perUser } from './rate-limits.js';
import { zPaginated, zNoContent } from '../../core/response-schemas.js';
import { zStoreBody } from './stores.serializer.js';
import { BLANK, maxChars, zCoordinate, zDescription, zName, zOptionalUuid } from './fields.js';
import { adminUpdateStore, createStore, deleteStore, getStore, listStoresPage, myStores, syncStoreLocation, updateStore } from './stores.service.js';

const tags = ['stores'];
export const SLUG_FORMAT = 'Enter a valid store handle consisting of letters, numbers, underscores or hyphens.';


const zSlug = () => z.string().trim().min(1, BLANK).max(50, maxChars(50)).regex(/^[A-Za-z0-9_-]+$/, SLUG_FORMAT);
const zSocialUrl = () =>
  z.preprocess(
    (v) => (v === null ? '' : v),
    // Web links only: a `javascript:` link would run script in the apps that render it.
    z.union([z.literal(''), z.url({ protocol: /^https?$/, error: 'Enter a valid URL.' }).max(200, maxChars(200))], { error: 'Enter a valid URL.' }),
  );

const storeFields = {
  description: zDescription().optional(),
  social_url: zSocialUrl().optional(),
  location: zOptionalUuid(),
  community: zOptionalUuid(),
  latitude: zCoordinate(90).optional(),
  longitude: zCoordinate(180).optional(),
  logo: zImageFile().optional(),
  banner: zImageFile().optional(),
};
const bothOrNeither = (v: { latitude?: number; longitude?: number }) => (v.latitude === undefined) === (v.longitude === undefined);
const coordinatesRule = { message: 'Send both latitude and longitude, or neither.', path: ['latitude'] };
const storeFiles = [imageField('logo'), imageField('banner')];

export const listStoresOp = defineOperation({
  name: 'stores.list',
  method: 'GET',
  path: '/api/stores/stores/',
  auth: 'public',
  summary: 'Stores, newest first; filters location, slug, search (name and description)',
  tags,
  input: z.object({ location: zOptionalUuid(), slug: zOptionalText(50), search: zOptionalText(100), page: zPage(), page_size: zPageSize() }),
  rateLimits: READS_PER_IP,
  responses: { 200: zPaginated(zStoreBody) },
  handler: async (input, ctx) => ok(await listStoresPage(ctx, { ...input, location: input.location ?? undefined })),
});

export const createStoreOp = defineOperation({
  name: 'stores.create',
  method: 'POST',
  path: '/api/stores/stores/',
  auth: 'user',
  summary: "Open a store (location and coordinates default to the owner's location)",
  tags,
  files: storeFiles,
  input: z.object({ name: zName(), slug: zSlug(), ...storeFields }).refine(bothOrNeither, coordinatesRule),
  rateLimits: perUser(10, 3600),
  responses: { 201: zStoreBody },
  errors: [404],
  handler: async (input, ctx) => created(await createStore(ctx, input)),
});

export const getStoreOp = defineOperation({
  name: 'stores.get',
  method: 'GET',
  path: '/api/stores/stores/{store_id}/',
  auth: 'public',
  summary: 'A store',
  tags,
  input: z.object({ store_id: zUuid() }),
  rateLimits: READS_PER_IP,
  responses: { 200: zStoreBody },
  handler: async (input, ctx) => ok(await getStore(ctx, input.store_id)),
});

const updateInput = z.object({ store_id: zUuid(), name: zName().optional(), slug: zSlug().optional(), ...storeFields }).refine(bothOrNeither, coordinatesRule);
const updateHandler = async (input: z.output<typeof updateInput>, ctx: Parameters<typeof updateStore>[0]) => ok(await updateStore(ctx, input.store_id, input));

export const putStoreOp = defineOperation({
  name: 'stores.update',
  method: 'PUT',
  path: '/api/stores/stores/{store_id}/',
  auth: 'user',
  summary: 'Update a store (owner; only the fields sent change; is_verified is ignored)',
  tags,
  files: storeFiles,
  input: updateInput,
  rateLimits: perUser(120, 3600),
  responses: { 200: zStoreBody },
  errors: [403],
  handler: updateHandler,
});

export const patchStoreOp = defineOperation({
  name: 'stores.patch',
  method: 'PATCH',
  path: '/api/stores/stores/{store_id}/',
  auth: 'user',
  summary: 'Partially update a store (owner; is_verified is ignored)',
  tags,
  files: storeFiles,
  input: updateInput,
  rateLimits: perUser(120, 3600),
  responses: { 200: zStoreBody },
  errors: [403],
  handler: updateHandler,
});

export const deleteStoreOp = defineOperation({
  name: 'stores.delete',
  method: 'DELETE',
  path: '/api/stores/stores/{store_id}/',
  auth: 'user',
  summary: 'Delete a store with its products and their images (owner)',
  tags,
  input: z.object({ store_id: zUuid() }),
  rateLimits: perUser(30, 3600),
  responses: { 204: zNoContent },
  errors: [403],
  handler: async (input, ctx) => {
    await deleteStore(ctx, input.store_id);
    return noContent();
  },
});

export const myStoreOp = defineOperation({
  name: 'stores.my_store',
  method: 'GET',
  path: '/api/stores/stores/my_store/',
  auth: 'user',
  summary: "The caller's stores (an array, not paginated)",
  tags,
  input: z.object({}),
  rateLimits: perUser(600, 60),
  responses: { 200: z.array(zStoreBody) },
  handler: async (_input, ctx) => ok(await myStores(ctx)),
});

export const syncLocationOp = defineOperation({
  name: 'stores.sync_location',
  method: 'PATCH',
  path: '/api/stores/stores/{store_id}/sync_location/',
  auth: 'user',
  summary: "Move the store to the owner's current location (owner)",
  tags,
  input: z.object({ store_id: zUuid() }),
  rateLimits: perUser(60, 3600),
  responses: { 200: zStoreBody },
  errors: [403],
  handler: async (input, ctx) => ok(await syncStoreLocation(ctx, input.store_id)),
});

export const adminUpdateStoreOp = defineOperation({
  name: 'admin.stores_update',
  method: 'PATCH',
  path: '/api/admin/stores/{store_id}/',
  auth: 'admin',
  summary: 'Verify or unverify a store (administrators)',
  tags: ['admin', 'stores'],
  input: z.object({ store_id: zUuid(), is_verified: zBool().optional() }),
  responses: { 200: zStoreBody },
  handler: async (input, ctx) => ok(await adminUpdateStore(ctx, input.store_id, input)),
});

export const storeOperations = [listStoresOp, createStoreOp, getStoreOp, putStoreOp, patchStoreOp, deleteStoreOp, myStoreOp, syncLocationOp, adminUpdateStoreOp];
