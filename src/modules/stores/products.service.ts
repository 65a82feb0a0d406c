import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AuthedContext, RequestContext } from '../../core/context.js';
import type { ProcessedImage } from '../../core/uploads.js';
import { fieldError, notFound } from '../../core/errors.js';
import { requireOwner } from '../../core/ownership.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { productImages, products, stores, type PriceType, type ProductCategory } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction, type Tx } from '../../platform/db.js';
import { findProduct, listProducts, type ProductFilters } from './products.queries.js';
import { serializeProduct, type ProductBody } from './products.serializer.js';
import { STORE_NOT_FOUND } from './stores.service.js';
import { StagedFiles, deleteFiles } from './uploads.js';
import { emitStoreEvent } from '../webhooks/webhooks.events.js';
import { productAsRead } from './orders.service.js';

export const MAX_PRODUCT_IMAGES = 10;
export const PRICE_REQUIRED = 'Price is required when price_type is fixed.';
export const NOT_YOUR_STORE = 'You can only add products to your own store.';

export interface ProductFields {
  name?: string;
  description?: string;
  category?: ProductCategory;
  stock?: number;
  price_type?: PriceType;
  price?: string | null;
  uploaded_images?: ProcessedImage[];
}

export async function getProduct(ctx: RequestContext, id: string): Promise<ProductBody> {
  const product = await findProduct(id);
  if (!product) throw notFound();
  return serializeProduct(product, ctx);
}

export async function listProductsPage(ctx: RequestContext, input: ProductFilters & { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const { count, rows } = await listProducts(input, params.limit, params.offset);
  const filters = { category: input.category, price: input.price, store: input.store, search: input.search };
  return paginated(ctx, '/api/stores/products/', params, count, rows.map((p) => serializeProduct(p, ctx)), filters);
}

const tooManyImages = () => fieldError('uploaded_images', `A product has at most ${MAX_PRODUCT_IMAGES} images.`);

/**
 * Image files are written before the transaction that names them: an upload (to S3, seconds) must not hold the
 * product's row lock, which orders wait for, nor a pool connection (the embedded database has one).
 */
async function stageImages(files: StagedFiles, uploads: ProcessedImage[]): Promise<string[]> {
  const keys: string[] = [];
  for (const file of uploads) keys.push(await files.put('products/images', file));
  return keys;
}

async function insertImages(tx: Tx, productId: string, keys: string[]): Promise<void> {
  if (keys.length) await tx.insert(productImages).values(keys.map((image) => ({ productId, image })));
}

/** Cheap ownership check before any file is written; the transaction checks again under its lock. */
async function storeOwnerOf(storeId: string): Promise<string | null> {
  const [store] = await platform.db.select({ ownerId: stores.ownerId }).from(stores).where(eq(stores.id, storeId)).limit(1);
  return store?.ownerId ?? null;
}

export async function createProduct(ctx: AuthedContext, input: ProductFields & { store_id: string; name: string; category: ProductCategory; stock: number }): Promise<ProductBody> {
  const priceType = input.price_type ?? 'fixed';
  const price = input.price ?? null;
  if (priceType === 'fixed' && price === null) throw fieldError('price', PRICE_REQUIRED);
  const uploads = input.uploaded_images ?? [];
  if (uploads.length > MAX_PRODUCT_IMAGES) throw tooManyImages();
  const owner = await storeOwnerOf(input.store_id);
  if (!owner) throw notFound(STORE_NOT_FOUND);
  requireOwner(ctx.user, owner, { detail: NOT_YOUR_STORE });
  const files = new StagedFiles();
  let id: string;
  try {
    const imageKeys = await stageImages(files, uploads);
    id = await transaction(platform.db, async (tx) => {
      // KEY SHARE: the store cannot be deleted under the new product, and its owner is the one read.
      const [store] = await tx.select({ ownerId: stores.ownerId }).from(stores).where(eq(stores.id, input.store_id)).for('key share');
      if (!store) throw notFound(STORE_NOT_FOUND);
      requireOwner(ctx.user, store.ownerId, { detail: NOT_YOUR_STORE });
      const [row] = await tx
        .insert(products)
        .values({ storeId: input.store_id, name: input.name, description: input.description ?? '', category: input.category, stock: input.stock, priceType, price })
        .returning({ id: products.id });
      await insertImages(tx, row.id, imageKeys);
      return row.id;
    });
  } catch (err) {
    await files.discard();
    throw err;
  }
  return getProduct(ctx, id);
}

/** The product locked for a change by its store's owner: 404 when missing, 403 for anyone else. */
async function lockOwnProduct(tx: Tx, ctx: AuthedContext, id: string) {
  const [row] = await tx
    .select({ product: products, ownerId: stores.ownerId })
    .from(products)
    .innerJoin(stores, eq(stores.id, products.storeId))
    .where(eq(products.id, id))
    .for('update', { of: products });
  if (!row) throw notFound();
  requireOwner(ctx.user, row.ownerId);
  return row.product;
}

/** PUT and PATCH: only the fields sent change; images are added (uploaded_images) and removed (images_to_delete). */
export async function updateProduct(ctx: AuthedContext, id: string, input: ProductFields & { images_to_delete?: string[] }): Promise<ProductBody> {
  const [found] = await platform.db
    .select({ ownerId: stores.ownerId })
    .from(products)
    .innerJoin(stores, eq(stores.id, products.storeId))
    .where(eq(products.id, id))
    .limit(1);
  if (!found) throw notFound();
  requireOwner(ctx.user, found.ownerId);
  const files = new StagedFiles();
  let removedKeys: string[] = [];
  try {
    const imageKeys = await stageImages(files, input.uploaded_images ?? []);
    removedKeys = await transaction(platform.db, async (tx) => {
      const current = await lockOwnProduct(tx, ctx, id);
      const priceType = input.price_type ?? current.priceType;
      const price = input.price !== undefined ? input.price : current.price;
      if (priceType === 'fixed' && price === null) throw fieldError('price', PRICE_REQUIRED);

      const toDelete = [...new Set(input.images_to_delete ?? [])];
      const removed = toDelete.length
        ? await tx.select({ id: productImages.id, image: productImages.image }).from(productImages).where(and(eq(productImages.productId, id), inArray(productImages.id, toDelete)))
        : [];
      const foreign = toDelete.filter((imageId) => !removed.some((r) => r.id === imageId));
      if (foreign.length) throw fieldError('images_to_delete', `Image ${foreign[0]} does not belong to this product.`);
      const [{ kept }] = await tx.select({ kept: sql<number>`count(*)::int` }).from(productImages).where(eq(productImages.productId, id));
      if (kept - removed.length + (input.uploaded_images?.length ?? 0) > MAX_PRODUCT_IMAGES) throw tooManyImages();

      const changes: Partial<typeof products.$inferInsert> = { updatedAt: new Date(), priceType, price };
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      if (input.category !== undefined) changes.category = input.category;
      if (input.stock !== undefined) changes.stock = input.stock;
      await tx.update(products).set(changes).where(eq(products.id, id));
      if (removed.length) await tx.delete(productImages).where(inArray(productImages.id, removed.map((r) => r.id)));
      await insertImages(tx, id, imageKeys);
      if (input.stock === 0 && current.stock > 0) await emitStoreEvent(tx, current.storeId, 'product.out_of_stock', () => productAsRead(id));
      return removed.map((r) => r.image);
    });
  } catch (err) {
    await files.discard();
    throw err;
  }
  // Files of removed images go once the change is committed.
  await deleteFiles(removedKeys);
  return getProduct(ctx, id);
}

/** Deletes the product and, after the commit, its image files (disk or S3). */
export async function deleteProduct(ctx: AuthedContext, id: string): Promise<void> {
  const keys = await transaction(platform.db, async (tx) => {
    // The store first, then the product: the order a store's deletion (and its cascade) takes them, so deleting a
    // product while its store goes cannot deadlock (the 0016 trigger updates the store's product summary).
    await tx.execute(sql`SELECT 1 FROM stores WHERE id = (SELECT store_id FROM products WHERE id = ${id}) FOR NO KEY UPDATE`);
    await lockOwnProduct(tx, ctx, id);
    const images = await tx.select({ image: productImages.image }).from(productImages).where(eq(productImages.productId, id));
    await tx.delete(products).where(eq(products.id, id));
    return images.map((i) => i.image);
  });
  await deleteFiles(keys);
}
