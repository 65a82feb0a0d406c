import { and, desc, eq, sql } from 'drizzle-orm';
import type { AuthedContext, RequestContext } from '../../core/context.js';
import { AppError, fieldError, forbidden, notFound } from '../../core/errors.js';
import { requireOwner } from '../../core/ownership.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { products, reviews, stores, type ReviewRow } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { currentDb, transaction } from '../../platform/db.js';
import { emitStoreEvent } from '../webhooks/webhooks.events.js';
import { isBlockedBetween, notBlockedWith } from '../policy/visibility.js';
import { violates } from './uploads.js';
import { serializeReview, type ReviewBody } from './reviews.serializer.js';

export const ALREADY_REVIEWED = 'You have already reviewed this product.';

export async function listReviews(ctx: RequestContext, input: { product?: string; page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  // A review by someone in a block with the reader, either way, is not listed for them (DESIGN.md section 9).
  const where = and(input.product ? eq(reviews.productId, input.product) : undefined, notBlockedWith(ctx.user?.id, sql`${reviews.userId}`));
  const db = currentDb();
  const [{ count }] = await db.select({ count: sql<number>`count(*)::int` }).from(reviews).where(where);
  const rows = count ? await db.select().from(reviews).where(where).orderBy(desc(reviews.createdAt), desc(reviews.id)).limit(params.limit).offset(params.offset) : [];
  return paginated(ctx, '/api/stores/reviews/', params, count, rows.map(serializeReview), { product: input.product });
}

/** A block either way holds between a person and the other's shop: no review, new or changed (DESIGN.md section 9, "Every path"). */
async function refuseAcrossBlock(ctx: AuthedContext, sellerId: string | null): Promise<void> {
  if (sellerId && (await isBlockedBetween(ctx.user.id, sellerId))) throw forbidden();
}

/** One review per user and product (the unique index decides between two at once); sellers do not review their own products. */
export async function createReview(ctx: AuthedContext, input: { product: string; rating: number; comment?: string }): Promise<ReviewBody> {
  const [product] = await platform.db.select({ sellerId: stores.ownerId, storeId: stores.id }).from(products).innerJoin(stores, eq(stores.id, products.storeId)).where(eq(products.id, input.product));
  if (!product) throw fieldError('product', `Invalid pk "${input.product}" - object does not exist.`);
  if (product.sellerId === ctx.user.id) throw new AppError(400, { detail: 'You cannot review your own product.' });
  await refuseAcrossBlock(ctx, product.sellerId);
  try {
    // The review and its webhook event in one transaction (DESIGN.md section 12).
    return await transaction(platform.db, async (tx) => {
      const [row] = await tx.insert(reviews).values({ userId: ctx.user.id, productId: input.product, rating: input.rating, comment: input.comment ?? '' }).returning();
      const body = serializeReview(row);
      await emitStoreEvent(tx, product.storeId, 'review.created', body);
      return body;
    });
  } catch (err) {
    if (violates(err, 'reviews_user_product_key')) throw fieldError('non_field_errors', ALREADY_REVIEWED);
    // The product was deleted between the check and the insert.
    if (violates(err, 'reviews_product_id_products_id_fk') || violates(err, 'reviews_product_id_fkey')) throw fieldError('product', `Invalid pk "${input.product}" - object does not exist.`);
    throw err;
  }
}

/** Author only: 404 when the review does not exist, 403 for anyone else. */
async function ownReview(ctx: AuthedContext, id: string): Promise<ReviewRow> {
  const [row] = await platform.db.select().from(reviews).where(eq(reviews.id, id));
  if (!row) throw notFound();
  requireOwner(ctx.user, row.userId);
  return row;
}

export async function updateReview(ctx: AuthedContext, id: string, input: { rating?: number; comment?: string }): Promise<ReviewBody> {
  const review = await ownReview(ctx, id);
  // Deleting one's review stays possible across a block; changing it is reviewing again.
  const [product] = await platform.db.select({ sellerId: stores.ownerId }).from(products).innerJoin(stores, eq(stores.id, products.storeId)).where(eq(products.id, review.productId));
  await refuseAcrossBlock(ctx, product?.sellerId ?? null);
  const changes: Partial<typeof reviews.$inferInsert> = { updatedAt: new Date() };
  if (input.rating !== undefined) changes.rating = input.rating;
  if (input.comment !== undefined) changes.comment = input.comment;
  const [row] = await platform.db.update(reviews).set(changes).where(and(eq(reviews.id, id), eq(reviews.userId, ctx.user.id))).returning();
  if (!row) throw notFound();
  return serializeReview(row);
}

export async function deleteReview(ctx: AuthedContext, id: string): Promise<void> {
  await ownReview(ctx, id);
  await platform.db.delete(reviews).where(and(eq(reviews.id, id), eq(reviews.userId, ctx.user.id)));
}
