import { z } from 'zod';
import { created, defineOperation, ok } from '../../core/operation.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { perUser } from './rate-limits.js';
import { zPaginated } from '../../core/response-schemas.js';
import { ORDER_STATUSES } from '../../models/index.js';
import { zOrderBody } from './orders.serializer.js';
import { ORDER_MAX_UNITS, createOrder, listOrders, updateOrderStatus } from './orders.service.js';
import { zChoice, zWhole } from './fields.js';


export const listOrdersOp = defineOperation({
  name: 'orders.list',
  method: 'GET',
  path: '/api/stores/orders/',
  auth: 'user',
  summary: "The caller's orders, newest first; role=seller lists the orders its stores received",
  tags: ['orders'],
  input: z.object({ role: z.preprocess((v) => (v === '' ? undefined : v), zChoice(['buyer', 'seller'] as const).optional()), page: zPage(), page_size: zPageSize() }),
  rateLimits: perUser(600, 60),
  responses: { 200: zPaginated(zOrderBody) },
  handler: async (input, ctx) => ok(await listOrders(ctx, input)),
});

export const createOrderOp = defineOperation({
  name: 'orders.create',
  method: 'POST',
  path: '/api/stores/orders/',
  auth: 'user',
  summary:
    "Order a product: total_price computed, stock taken in the same transaction; the seller hears order:created. 1 to 99 units per order, and the buyer's pending orders hold at most ORDER_MAX_PENDING_UNITS (default 20) units of one product (beyond: 400 on quantity)",
  tags: ['orders'],
  input: z.object({
    product: zUuid(),
    quantity: zWhole(1, ORDER_MAX_UNITS).describe(`1 to ${ORDER_MAX_UNITS} units; with the caller's pending orders of this product at most ORDER_MAX_PENDING_UNITS (default 20)`),
  }),
  rateLimits: perUser(30, 60),
  responses: { 201: zOrderBody },
  errors: [403, 404],
  handler: async (input, ctx) => created(await createOrder(ctx, input)),
});

export const updateOrderOp = defineOperation({
  name: 'orders.update',
  method: 'PATCH',
  path: '/api/stores/orders/{order_id}/',
  auth: 'user',
  summary:
    'Change the status: the seller moves it forward or cancels it until it is shipped; the buyer may only cancel, while it is pending (other statuses 403, a later cancellation 400). A cancellation returns the units to stock; a cancelled order changes no more (400). The other party hears order:updated and is notified',
  tags: ['orders'],
  input: z.object({
    order_id: zUuid(),
    status: zChoice(ORDER_STATUSES).describe(
      'pending → processing → shipped → delivered (forward only, seller), or cancelled (buyer while pending, seller until shipped); the current status again is a 200 no-op',
    ),
  }),
  rateLimits: perUser(300, 60),
  responses: { 200: zOrderBody },
  errors: [403],
  handler: async (input, ctx) => ok(await updateOrderStatus(ctx, input.order_id, input.status)),
});

export const orderOperations = [listOrdersOp, createOrderOp, updateOrderOp];
