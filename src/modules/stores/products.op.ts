import { z } from 'zod';
import { created, defineOperation, noContent, ok } from '../../core/operation.js';
import { zOptionalText, zPage, zPageSize, zUuid } from '../../core/validation.js';
import { imageField, zImageFile } from '../../core/uploads.js';
import { zPaginated, zNoContent } from '../../core/response-schemas.js';
import { PRICE_TYPES, PRODUCT_CATEGORIES, type ProductCategory } from '../../models/index.js';
import { zProductBody } from './products.serializer.js';
import { zChoice, zDescription, zName, zOptionalUuid, zUuidList, zWhole } from './fields.js';
import { zMoney } from './money.js';
import { MAX_PRODUCT_IMAGES, createProduct, deleteProduct, getProduct, listProductsPage, updateProduct } from './products.service.js';
import { productsByLocation } from './discovery.service.js';
import { READS_PER_IP, perUser } from './rate-limits.js';

const tags = ['products'];

const zImages = () => z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(zImageFile()).max(MAX_PRODUCT_IMAGES, `A product has at most ${MAX_PRODUCT_IMAGES} images.`));
const productFiles = [imageField('uploaded_images', MAX_PRODUCT_IMAGES)];

const productFields = {
  description: zDescription().optional(),
  price_type: zChoice(PRICE_TYPES).optional(),
  price: zMoney().optional(),
  uploaded_images: zImages().optional(),
};

export const listProductsOp = defineOperation({
  name: 'products.list',
  method: 'GET',
  path: '/api/stores/products/',
  auth: 'public',
  summary: 'Products, newest first; filters category, price (exact), store, search (name and description)',
  tags,
  input: z.object({
    category: z.preprocess((v) => (v === '' ? undefined : v), zChoice(PRODUCT_CATEGORIES).optional()),
    price: z.preprocess((v) => (v === '' ? undefined : v), zMoney().optional()),
    store: zOptionalUuid(),
    search: zOptionalText(100),
    page: zPage(),
    page_size: zPageSize(),
  }),
  rateLimits: READS_PER_IP,
  responses: { 200: zPaginated(zProductBody) },
  handler: async (input, ctx) => ok(await listProductsPage(ctx, { ...input, price: input.price ?? undefined, store: input.store ?? undefined })),
});

const zCategories = () =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v),
    z.array(zChoice(PRODUCT_CATEGORIES)).max(PRODUCT_CATEGORIES.length * 2),
  );

export const productsByLocationOp = defineOperation({
  name: 'products.by_location',
  method: 'GET',
  path: '/api/stores/products/by-location/',
  auth: 'public',
  summary: "Products of stores in the target location's most specific level, widening level by level while nothing is found",
  tags,
  input: z.object({ location_id: zUuid(), search: zOptionalText(100), categories: zCategories().optional(), page: zPage(), page_size: zPageSize() }),
  rateLimits: READS_PER_IP,
  responses: {
    200: z.union([
      z.object({
        count: z.number().int(),
        next: z.string().nullable(),
        previous: z.string().nullable(),
        location_name: z.string().describe("The matched level's value"),
        level: z.string().describe('The hierarchy level that matched'),
        products: z.array(zProductBody),
      }),
      z.object({ location_name: z.null(), products: z.array(zProductBody).max(0) }),
    ]),
  },
  handler: async (input, ctx) => ok(await productsByLocation(ctx, { ...input, categories: input.categories as ProductCategory[] | undefined })),
});

export const getProductOp = defineOperation({
  name: 'products.get',
  method: 'GET',
  path: '/api/stores/products/{product_id}/',
  auth: 'public',
  summary: 'A product',
  tags,
  input: z.object({ product_id: zUuid() }),
  rateLimits: READS_PER_IP,
  responses: { 200: zProductBody },
  handler: async (input, ctx) => ok(await getProduct(ctx, input.product_id)),
});

export const createProductOp = defineOperation({
  name: 'products.create',
  method: 'POST',
  path: '/api/stores/products/',
  auth: 'user',
  summary: "Add a product to one's own store (multipart; uploaded_images are files)",
  tags,
  files: productFiles,
  input: z.object({ store_id: zUuid(), name: zName(), category: zChoice(PRODUCT_CATEGORIES), stock: zWhole(0), ...productFields }),
  rateLimits: perUser(60, 3600),
  responses: { 201: zProductBody },
  errors: [403, 404],
  handler: async (input, ctx) => created(await createProduct(ctx, input)),
});

const updateInput = z.object({
  product_id: zUuid(),
  name: zName().optional(),
  category: zChoice(PRODUCT_CATEGORIES).optional(),
  stock: zWhole(0).optional(),
  ...productFields,
  images_to_delete: zUuidList().optional(),
});
const updateRate = perUser(300, 3600);

export const putProductOp = defineOperation({
  name: 'products.update',
  method: 'PUT',
  path: '/api/stores/products/{product_id}/',
  auth: 'user',
  summary: 'Update a product (owner; only the fields sent change; images_to_delete removes images)',
  tags,
  files: productFiles,
  input: updateInput,
  rateLimits: updateRate,
  responses: { 200: zProductBody },
  errors: [403],
  handler: async (input, ctx) => ok(await updateProduct(ctx, input.product_id, input)),
});

export const patchProductOp = defineOperation({
  name: 'products.patch',
  method: 'PATCH',
  path: '/api/stores/products/{product_id}/',
  auth: 'user',
  summary: 'Partially update a product (owner)',
  tags,
  files: productFiles,
  input: updateInput,
  rateLimits: updateRate,
  responses: { 200: zProductBody },
  errors: [403],
  handler: async (input, ctx) => ok(await updateProduct(ctx, input.product_id, input)),
});

export const deleteProductOp = defineOperation({
  name: 'products.delete',
  method: 'DELETE',
  path: '/api/stores/products/{product_id}/',
  auth: 'user',
  summary: 'Delete a product and its image files (owner)',
  tags,
  input: z.object({ product_id: zUuid() }),
  rateLimits: perUser(120, 3600),
  responses: { 204: zNoContent },
  errors: [403],
  handler: async (input, ctx) => {
    await deleteProduct(ctx, input.product_id);
    return noContent();
  },
});

export const productOperations = [listProductsOp, productsByLocationOp, getProductOp, createProductOp, putProductOp, patchProductOp, deleteProductOp];
