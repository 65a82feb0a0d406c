import { sql } from 'drizzle-orm';
import type { OrderRow } from '../../models/index.js';
import type { AccountDeletionStep } from '../../core/leaving.js';
import { notifyEach, type NewNotification } from '../notifications/notifications.service.js';
import { serializeOrder } from './orders.serializer.js';
import { toOrder, type OrderSqlRow } from './orders.queries.js';
import './orders.service.js';

/**
 * Orders stay with the other party, the person removed (the foreign keys clear `user_id` or `seller_id` when the
 * account goes). An order still open (pending or processing) can no longer be fulfilled, since one of its two
 * parties is gone: it is cancelled, as either party may cancel it, the buyer's units go back on the shelf, and the
 * other party is notified and hears `order:updated`. Shipped and delivered orders are kept as they are.
 */
export const ordersLeaving: AccountDeletionStep = {
  module: 'orders',
  handles: {
    'orders.user_id': 'set null',
    'orders.seller_id': 'set null',
  },
  async run({ tx, events, userId }) {
    // Products before orders, in id order: the order in which an order's creation and its cancellation take them.
    await tx.execute(sql`
      SELECT id FROM products WHERE id IN (
        SELECT product_id FROM orders WHERE user_id = ${userId} AND status IN ('pending', 'processing'))
      ORDER BY id FOR NO KEY UPDATE`);
    const { rows } = await tx.execute<OrderSqlRow & { product_name: string | null }>(sql`
      WITH cancelled AS (
        UPDATE orders SET status = 'cancelled', updated_at = now()
        WHERE (user_id = ${userId} OR seller_id = ${userId}) AND status IN ('pending', 'processing')
        RETURNING *
      ), restocked AS (
        UPDATE products p SET stock = LEAST(p.stock::bigint + x.units, 2147483647)::int, updated_at = now()
        FROM (SELECT product_id, sum(quantity)::bigint AS units FROM cancelled
              WHERE user_id = ${userId} AND product_id IS NOT NULL GROUP BY product_id) x
        WHERE p.id = x.product_id
      )
      SELECT c.id, c.user_id, c.product_id, c.store_id, c.seller_id, c.quantity, c.unit_price::text AS unit_price,
        c.total_price::text AS total_price, c.status, c.created_at, c.updated_at, pr.name AS product_name
      FROM cancelled c LEFT JOIN products pr ON pr.id = c.product_id
      ORDER BY c.created_at, c.id`);
    const told: NewNotification[] = [];
    for (const r of rows) {
      const buyerLeft = r.user_id === userId;
      const recipientId = buyerLeft ? r.seller_id : r.user_id;
      if (!recipientId) continue;
      const what = `${r.quantity} × ${r.product_name ?? 'a product no longer listed'}`;
      told.push({
        recipientId,
        type: 'general',
        targetType: 'Order',
        targetId: r.id,
        message: buyerLeft ? `The order of ${what} was cancelled: the buyer deleted their account.` : `Your order of ${what} was cancelled: the seller deleted their account.`,
      });
      // The order as the other party will read it: the person who left is no longer on it.
      const order: OrderRow = {
        ...toOrder(r),
        userId: buyerLeft ? null : r.user_id,
        productId: buyerLeft ? r.product_id : null,
        storeId: buyerLeft ? r.store_id : null,
        sellerId: buyerLeft ? r.seller_id : null,
      };
      events.add('order.updated', { recipientId, order: serializeOrder(order) });
    }
    await notifyEach(tx, events, told);
  },
};
