import { sql } from 'drizzle-orm';
import { currentDb } from '../../platform/db.js';
import type { OrderRow } from '../../models/index.js';

/** An order's columns as SQL reads them (money as text), and its model shape. */
export interface OrderSqlRow extends Record<string, unknown> {
  id: string;
  user_id: string | null;
  product_id: string | null;
  store_id: string | null;
  seller_id: string | null;
  quantity: number;
  unit_price: string;
  total_price: string;
  status: OrderRow['status'];
  created_at: Date | string;
  updated_at: Date | string;
}

export const toOrder = (r: OrderSqlRow): OrderRow => ({
  id: r.id,
  userId: r.user_id,
  productId: r.product_id,
  storeId: r.store_id,
  sellerId: r.seller_id,
  quantity: r.quantity,
  unitPrice: r.unit_price,
  totalPrice: r.total_price,
  status: r.status,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

/**
 * Orders `userId` placed or received, changed after a (updated_at, id) position, oldest first (realtime.sync),
 * each with its exact position. One range scan per role (orders_user_changed_idx, orders_seller_changed_idx,
 * migration 0015), merged; a user is never both buyer and seller of one order, but the seller side excludes
 * that case anyway so that no order can come twice.
 */
export async function ordersChangedAfter(
  userId: string,
  after: { at: string; id: string },
  limit: number,
): Promise<Array<{ order: OrderRow; position: { at: string; id: string } }>> {
  const position = sql`(${after.at}::timestamptz, ${after.id}::uuid)`;
  const columns = sql`id, user_id, product_id, store_id, seller_id, quantity, unit_price::text AS unit_price, total_price::text AS total_price,
    status, created_at, updated_at, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at`;
  const result = await currentDb().execute<OrderSqlRow & { at: string }>(sql`
    SELECT * FROM (
      (SELECT ${columns} FROM orders WHERE user_id = ${userId} AND (updated_at, id) > ${position} ORDER BY updated_at, id LIMIT ${limit})
      UNION ALL
      (SELECT ${columns} FROM orders WHERE seller_id = ${userId} AND user_id IS DISTINCT FROM ${userId} AND (updated_at, id) > ${position} ORDER BY updated_at, id LIMIT ${limit})
    ) mine
    ORDER BY updated_at, id
    LIMIT ${limit}`);
  return result.rows.map((r) => ({ order: toOrder(r), position: { at: r.at, id: r.id } }));
}
