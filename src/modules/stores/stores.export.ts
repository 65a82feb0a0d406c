import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../../core/leaving.js';
import { olderThan, ownedRowsPage, positionAt, withPositions } from '../../core/export-paging.js';
import { findStoresByIds } from './stores.queries.js';
import { serializeStore, zStoreBody } from './stores.serializer.js';
import { findProductsByIds } from './products.queries.js';
import { serializeProduct, zProductBody } from './products.serializer.js';
import type { ReviewRow } from '../../models/index.js';
import { serializeReview, zReviewBody } from './reviews.serializer.js';

/** The marketplace's part of an account's export: the caller's stores, their products, the caller's reviews. */
export const storesExport: ExportSection = {
  name: 'stores',
  item: zStoreBody,
  load: (viewer, page) =>
    ownedRowsPage(
      { from: sql`stores t`, owned: sql`t.owner_id = ${viewer.userId}`, ...page },
      (ids) => findStoresByIds(ids, platform.db),
      (store) => serializeStore(store, viewer),
    ),
};

export const productsExport: ExportSection = {
  name: 'products',
  item: zProductBody,
  load: (viewer, page) =>
    ownedRowsPage(
      { from: sql`products t JOIN stores s ON s.id = t.store_id`, owned: sql`s.owner_id = ${viewer.userId}`, ...page },
      (ids) => findProductsByIds(ids),
      (product) => serializeProduct(product, viewer),
    ),
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
