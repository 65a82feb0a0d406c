import { and, desc, eq, sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { AppError, fieldError, forbidden, notFound } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { ORDER_STATUSES, orders, products, stores, type OrderStatus } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { notify } from '../notifications/notifications.service.js';
import { MAX_CENTS, fromCents, toCents } from './money.js';
import { serializeOrder, type OrderBody } from './orders.serializer.js';

declare module '../../core/events.js' {
  interface DomainEventMap {
    /** Pushed to the seller's devices (`order:created`). */
    'order.created': { sellerId: string; order: OrderBody };
    /** Pushed to the buyer's devices (`order:updated`). */
    'order.updated': { buyerId: string; order: OrderBody };
  }
}

export const OWN_STORE_ORDER = 'You cannot order from your own store.';
export const onlyLeft = (n: number) => `Only ${n} left in stock.`;

/**
 * One transaction: the stock is taken by a single conditional UPDATE (`stock >= quantity`), so concurrent
 * orders queue on the product row and none can oversell; the order row, the seller's notification and the
 * `order.created` push follow in the same transaction (pushed after COMMIT).
 */
export async function createOrder(ctx: AuthedContext, input: { product: string; quantity: number }): Promise<OrderBody> {
  return transaction(platform.db, async (tx, events) => {
    const [product] = await tx
      .select({ id: products.id, name: products.name, price: products.price, storeId: products.storeId, sellerId: stores.ownerId })
      .from(products)
      .innerJoin(stores, eq(stores.id, products.storeId))
      .where(eq(products.id, input.product));
    if (!product) throw fieldError('product', `Invalid pk "${input.product}" - object does not exist.`);
    if (product.sellerId === ctx.user.id) throw new AppError(400, { detail: OWN_STORE_ORDER });

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

const STATUS_FORWARD_ONLY = "An order's status only moves forward: pending → processing → shipped → delivered.";

/**
 * The seller moves the status forward (steps may be skipped); the same status again changes nothing. The buyer,
 * who knows the order, gets 403; anyone else 404, as if the order did not exist.
 */
export async function updateOrderStatus(ctx: AuthedContext, id: string, status: OrderStatus): Promise<OrderBody> {
  return transaction(platform.db, async (tx, events) => {
    const [order] = await tx.select().from(orders).where(eq(orders.id, id)).for('update');
    if (!order || (order.sellerId !== ctx.user.id && order.userId !== ctx.user.id)) throw notFound();
    if (order.sellerId !== ctx.user.id) throw forbidden();
    const from = ORDER_STATUSES.indexOf(order.status);
    const to = ORDER_STATUSES.indexOf(status);
    if (to < from) throw fieldError('status', STATUS_FORWARD_ONLY);
    if (to === from) return serializeOrder(order);
    const [updated] = await tx.update(orders).set({ status, updatedAt: new Date() }).where(eq(orders.id, id)).returning();
    const body = serializeOrder(updated);
    const [product] = order.productId ? await tx.select({ name: products.name }).from(products).where(eq(products.id, order.productId)) : [];
    const what = product ? `Your order of ${product.name}` : 'Your order';
    await notify(tx, events, { recipientId: order.userId, actorId: ctx.user.id, type: 'general', targetId: order.id, targetType: 'Order', message: `${what} is now ${status}.` });
    events.add('order.updated', { buyerId: order.userId, order: body });
    return body;
  });
}
