import { z } from 'zod';
import { ORDER_STATUSES, type OrderRow } from '../../models/index.js';

export const zOrderBody = z
  .object({
    id: z.string(),
    user: z.string().nullable().describe("The buyer; null once the buyer's account was deleted"),
    product: z.string().nullable().describe('null once the product was deleted'),
    store: z.string().nullable().describe('null once the store was deleted'),
    quantity: z.number().int(),
    unit_price: z.string().describe('The price when ordered, two decimals'),
    total_price: z.string().describe('unit_price × quantity, two decimals'),
    status: z.enum(ORDER_STATUSES),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Order' });
export type OrderBody = z.infer<typeof zOrderBody>;

/** Also the payload of `order:created` and `order:updated` (no per-viewer fields, no URLs). */
export function serializeOrder(o: OrderRow): OrderBody {
  return {
    id: o.id,
    user: o.userId,
    product: o.productId,
    store: o.storeId,
    quantity: o.quantity,
    unit_price: o.unitPrice,
    total_price: o.totalPrice,
    status: o.status,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
  };
}
