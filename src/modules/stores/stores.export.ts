import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../leaving/leaving.types.js';
import { olderThan, positionAt, withPositions } from '../leaving/export-paging.js';
import { findStore } from './stores.queries.js';
import { serializeStore, zStoreBody } from './stores.serializer.js';
import { findProductsByIds } from './products.queries.js';
import { serializeProduct, zProductBody } from './products.serializer.js';
import type { ReviewRow } from '../../models/index.js';
import { serializeReview, zReviewBody } from './reviews.serializer.js';

/** The marketplace's part of an account's export: the caller's stores, their products, the caller's reviews. */
export const storesExport: ExportSection = {
  name: 'stores',
  item: zStoreBody,
  async load(viewer, page) {
    const { rows } = await platform.db.execute<{ id: string; at: string; position_id: string }>(sql`
      SELECT id, id AS position_id, ${positionAt(sql`created_at`)} AS at FROM stores
      WHERE owner_id = ${viewer.userId} AND ${olderThan(sql`created_at`, sql`id`, page.before)}
      ORDER BY created_at DESC, id DESC LIMIT ${page.limit}`);
    // A person owns a handful of stores: one read each is cheaper than a second way of reading a store.
    const found = await Promise.all(rows.map((r) => findStore(r.id, platform.db)));
    const stores = new Map(found.filter((s) => s !== null).map((s) => [s.id, s]));
    return withPositions(
      rows.filter((r) => stores.has(r.id)),
      (r) => serializeStore(stores.get(r.id)!, viewer),
    );
  },
};

export const productsExport: ExportSection = {
  name: 'products',
  item: zProductBody,
  async load(viewer, page) {
    const { rows } = await platform.db.execute<{ id: string; at: string; position_id: string }>(sql`
      SELECT p.id, p.id AS position_id, ${positionAt(sql`p.created_at`)} AS at FROM products p JOIN stores s ON s.id = p.store_id
      WHERE s.owner_id = ${viewer.userId} AND ${olderThan(sql`p.created_at`, sql`p.id`, page.before)}
      ORDER BY p.created_at DESC, p.id DESC LIMIT ${page.limit}`);
    const products = new Map((await findProductsByIds(rows.map((r) => r.id))).map((p) => [p.id, p]));
    return withPositions(
      rows.filter((r) => products.has(r.id)),
      (r) => serializeProduct(products.get(r.id)!, viewer),
    );
  },
};

export const reviewsExport: ExportSection = {
  name: 'reviews',
  item: zReviewBody,
  async load(viewer, page) {
    const { rows } = await platform.db.execute<{ id: string; user_id: string; product_id: string; rating: number; comment: string; created_at: Date; updated_at: Date; at: string; position_id: string }>(sql`
      SELECT id, user_id, product_id, rating, comment, created_at, updated_at, id AS position_id, ${positionAt(sql`created_at`)} AS at FROM reviews
      WHERE user_id = ${viewer.userId} AND ${olderThan(sql`created_at`, sql`id`, page.before)}
      ORDER BY created_at DESC, id DESC LIMIT ${page.limit}`);
    return withPositions(rows, (r) =>
      serializeReview({ id: r.id, userId: r.user_id, productId: r.product_id, rating: r.rating, comment: r.comment, createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at) } satisfies ReviewRow),
    );
  },
};
