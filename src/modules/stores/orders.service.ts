import { and, desc, eq, sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { AppError, fieldError, forbidden, notFound } from '../../core/errors.js';
import { requireOwner } from '../../core/ownership.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { orders, products, stores, type OrderRow, type OrderStatus } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction, type Tx } from '../../platform/db.js';
import { notify } from '../notifications/notifications.service.js';
import { isBlockedBetween } from '../policy/visibility.js';
import { MAX_CENTS, fromCents, toCents } from './money.js';
import { serializeOrder, type OrderBody } from './orders.serializer.js';
import { isStatusChange, type OrderParty } from './order-transitions.js';
import { emitStoreEvent } from '../webhooks/webhooks.events.js';
import { findProductsByIds } from './products.queries.js';
import { serializeProduct } from './products.serializer.js';
import { serverBaseUrl } from '../../core/server-base-url.js';

declare module '../../core/events.js' {
  interface DomainEventMap {
    /** Pushed to the seller's devices (`order:created`). */
    'order.created': { sellerId: string; order: OrderBody };
    /** Pushed to the other party's devices (`order:updated`): the buyer's when the seller changed it, the seller's when the buyer cancelled it. */
    'order.updated': { recipientId: string; order: OrderBody };
  }
}

export const OWN_STORE_ORDER = 'You cannot order from your own store.';
export const onlyLeft = (n: number) => `Only ${n} left in stock.`;
/** Units one order may hold (DESIGN.md section 8); the quantity field's upper bound. */
export const ORDER_MAX_UNITS = 99;
export const tooManyPendingUnits = (max: number, held: number) =>
  held > 0
    ? `Your pending orders may hold at most ${max} units of one product: ${held} already wait, so at most ${Math.max(0, max - held)} more.`
    : `Your pending orders may hold at most ${max} units of one product.`;

/**
 * One transaction: the product row is locked first (FOR NO KEY UPDATE, the lock the stock UPDATE takes anyway),
 * so one buyer's simultaneous orders of a product count its pending units one after another and cannot both pass
 * ORDER_MAX_PENDING_UNITS. The stock is then taken by a single conditional UPDATE (`stock >= quantity`), so none
 * can oversell. Nobody orders across a block with the seller, either way (403). The order row, the seller's notification and the `order.created` push follow in the same
 * transaction (pushed after COMMIT).
 */
export async function createOrder(ctx: AuthedContext, input: { product: string; quantity: number }): Promise<OrderBody> {
  return transaction(platform.db, async (tx, events) => {
    const [product] = await tx
      .select({ id: products.id, name: products.name, price: products.price, storeId: products.storeId, sellerId: stores.ownerId })
      .from(products)
      .innerJoin(stores, eq(stores.id, products.storeId))
      .where(eq(products.id, input.product))
      .for('no key update', { of: products });
    if (!product) throw fieldError('product', `Invalid pk "${input.product}" - object does not exist.`);
    if (product.sellerId === ctx.user.id) throw new AppError(400, { detail: OWN_STORE_ORDER });
    // A block either way holds between a person and the other's shop (DESIGN.md section 9, "Every path").
    if (await isBlockedBetween(ctx.user.id, product.sellerId, tx)) throw forbidden();

    // Read under the product's lock: every order of this product committed before it is counted.
    const maxPending = platform.config.ORDER_MAX_PENDING_UNITS;
    const held = await pendingUnits(tx, ctx.user.id, product.id);
    if (held + input.quantity > maxPending) throw fieldError('quantity', tooManyPendingUnits(maxPending, held));

    const [taken] = await tx
      .update(products)
      .set({ stock: sql`${products.stock} - ${input.quantity}`, updatedAt: new Date() })
      .where(and(eq(products.id, product.id), sql`${products.stock} >= ${input.quantity}`, sql`${products.price} IS NOT NULL`))
      .returning({ price: products.price, stock: products.stock });
    if (!taken) {
      // Read after the failed UPDATE: under READ COMMITTED it shows the stock the UPDATE saw refused.
      const [now] = await tx.select({ stock: products.stock, price: products.price }).from(products).where(eq(products.id, product.id));
      if (!now) throw fieldError('product', `Invalid pk "${input.product}" - object does not exist.`);
      if (now.price === null) throw fieldError('product', 'This product has no price yet: ask the seller.');
      throw fieldError('quantity', onlyLeft(now.stock));
    }
    const totalCents = toCents(taken.price!) * BigInt(input.quantity);
    // Rolled back with the stock: numeric(12,2) could not hold the total.
    if (totalCents > MAX_CENTS) throw fieldError('quantity', 'The order total is above the largest amount an order can hold.');
    const [order] = await tx
      .insert(orders)
      .values({ userId: ctx.user.id, productId: product.id, storeId: product.storeId, sellerId: product.sellerId, quantity: input.quantity, unitPrice: taken.price!, totalPrice: fromCents(totalCents) })
      .returning();
    const body = serializeOrder(order);
    await notify(tx, events, { recipientId: product.sellerId, actorId: ctx.user.id, type: 'general', targetId: order.id, targetType: 'Order', message: `${ctx.user.username} ordered ${input.quantity} × ${product.name}.` });
    events.add('order.created', { sellerId: product.sellerId, order: body });
    // Webhooks hear it in this transaction's outbox (DESIGN.md section 12): sent after the commit, never before.
    await emitStoreEvent(tx, product.storeId, 'order.created', body);
    if (taken.stock === 0) await emitStoreEvent(tx, product.storeId, 'product.out_of_stock', () => productAsRead(product.id));
    return body;
  });
}

export async function listOrders(ctx: AuthedContext, input: { role?: 'buyer' | 'seller'; page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const mine = input.role === 'seller' ? eq(orders.sellerId, ctx.user.id) : eq(orders.userId, ctx.user.id);
  const [{ count }] = await platform.db.select({ count: sql<number>`count(*)::int` }).from(orders).where(mine);
  const rows = count ? await platform.db.select().from(orders).where(mine).orderBy(desc(orders.createdAt), desc(orders.id)).limit(params.limit).offset(params.offset) : [];
  return paginated(ctx, '/api/stores/orders/', params, count, rows.map(serializeOrder), { role: input.role });
}

/** The product as its REST read shows it (webhooks' `data`), read in the caller's transaction. */
export async function productAsRead(id: string) {
  const [product] = await findProductsByIds([id]);
  return product ? serializeProduct(product, { baseUrl: serverBaseUrl() }) : null;
}

/** Units of `productId` that the buyer's pending orders hold. */
async function pendingUnits(tx: Tx, buyerId: string, productId: string): Promise<number> {
  const [{ units }] = await tx
    .select({ units: sql<number>`coalesce(sum(${orders.quantity}), 0)::int` })
    .from(orders)
    .where(and(eq(orders.userId, buyerId), eq(orders.productId, productId), eq(orders.status, 'pending')));
  return units;
}

/**
 * A status change by the seller or the buyer (rules in order-transitions.ts); the same status again changes nothing.
 * Anyone else gets 404, as if the order did not exist. A cancellation puts the units back on the shelf in the same
 * transaction. The other party is notified (`general`, target_type `Order`) and hears `order:updated`.
 */
export async function updateOrderStatus(ctx: AuthedContext, id: string, status: OrderStatus): Promise<OrderBody> {
  return transaction(platform.db, async (tx, events) => {
    const order = await lockOrder(tx, ctx, id, { withProduct: status === 'cancelled' });
    const party: OrderParty = order.sellerId === ctx.user.id ? 'seller' : 'buyer';
    if (!isStatusChange(party, order.status, status)) return serializeOrder(order);

    const [updated] = await tx.update(orders).set({ status, updatedAt: new Date() }).where(eq(orders.id, id)).returning();
    if (status === 'cancelled') await returnToStock(tx, order);
    const body = serializeOrder(updated);
    // The seller (or the buyer) is null once that account is gone: nobody is left to tell.
    const recipientId = party === 'seller' ? order.userId : order.sellerId;
    if (recipientId) {
      const [product] = order.productId ? await tx.select({ name: products.name }).from(products).where(eq(products.id, order.productId)) : [];
      await notify(tx, events, { recipientId, actorId: ctx.user.id, type: 'general', targetId: order.id, targetType: 'Order', message: statusMessage(ctx, party, order, status, product?.name) });
      events.add('order.updated', { recipientId, order: body });
    }
    await emitStoreEvent(tx, updated.storeId, status === 'cancelled' ? 'order.cancelled' : 'order.updated', body);
    return body;
  });
}

/**
 * The order locked for a change; 404 when it is missing or the caller is neither its buyer nor its seller (the
 * order's owners: anyone else is not told that it exists).
 * `withProduct` (a cancellation, which writes the stock) locks the product row first: products before orders is
 * the order in which an order's creation and a product's or store's deletion (ON DELETE SET NULL writes the
 * orders) take them, so a cancellation cannot deadlock with either. The product may go meanwhile; the order then
 * reads product null and no stock is returned.
 */
async function lockOrder(tx: Tx, ctx: AuthedContext, id: string, opts: { withProduct: boolean }): Promise<OrderRow> {
  if (opts.withProduct) {
    const [peek] = await tx.select({ userId: orders.userId, sellerId: orders.sellerId, productId: orders.productId }).from(orders).where(eq(orders.id, id));
    requireOrderParty(ctx, peek);
    if (peek.productId) await tx.select({ id: products.id }).from(products).where(eq(products.id, peek.productId)).for('no key update');
  }
  const [order] = await tx.select().from(orders).where(eq(orders.id, id)).for('update');
  requireOrderParty(ctx, order);
  return order;
}

function requireOrderParty<T extends { userId: string | null; sellerId: string | null }>(ctx: AuthedContext, order: T | undefined): asserts order is T {
  if (!order) throw notFound();
  requireOwner(ctx.user, [order.userId, order.sellerId], { hide: true });
}

/** The cancelled order's units back on the shelf (the product row is already locked by lockOrder). */
async function returnToStock(tx: Tx, order: OrderRow): Promise<void> {
  if (!order.productId) return;
  // Capped at the integer column's limit: a seller may have set the stock near it meanwhile, and the return must
  // not fail the cancellation with an overflow.
  await tx
    .update(products)
    .set({ stock: sql`LEAST(${products.stock}::bigint + ${order.quantity}, 2147483647)::int`, updatedAt: new Date() })
    .where(eq(products.id, order.productId));
}

function statusMessage(ctx: AuthedContext, party: OrderParty, order: OrderRow, status: OrderStatus, productName: string | undefined): string {
  if (party === 'buyer') return `${ctx.user.username} cancelled the order of ${order.quantity} × ${productName ?? 'a product no longer listed'}.`;
  return `${productName ? `Your order of ${productName}` : 'Your order'} is now ${status}.`;
}
