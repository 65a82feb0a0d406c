import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../../core/leaving.js';
import { olderThan, positionAt, withPositions } from '../../core/export-paging.js';
import { serializeOrder, zOrderBody } from './orders.serializer.js';
import { toOrder, type OrderSqlRow } from './orders.queries.js';

/** The caller's orders as a buyer, or the orders its stores received, in the shape the order list answers. */
function ordersExport(name: string, party: 'user_id' | 'seller_id'): ExportSection {
  const column = sql.identifier(party);
  return {
    name,
    item: zOrderBody,
    async load(viewer, page) {
      const { rows } = await platform.db.execute<OrderSqlRow & { at: string; position_id: string }>(sql`
        SELECT id, user_id, product_id, store_id, seller_id, quantity, unit_price::text AS unit_price, total_price::text AS total_price,
          status, created_at, updated_at, id AS position_id, ${positionAt(sql`created_at`)} AS at
        FROM orders WHERE ${column} = ${viewer.userId} AND ${olderThan(sql`created_at`, sql`id`, page.before)}
        ORDER BY created_at DESC, id DESC LIMIT ${page.limit}`);
      return withPositions(rows, (r) => serializeOrder(toOrder(r)));
    },
  };
}

export const ordersAsBuyerExport = ordersExport('orders_as_buyer', 'user_id');
export const ordersAsSellerExport = ordersExport('orders_as_seller', 'seller_id');
