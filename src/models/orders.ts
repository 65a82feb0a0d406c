import { pgTable, uuid, text, integer, smallint, numeric, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';
import { stores } from './stores.js';
import { products } from './products.js';

/** Forward only: a seller moves an order along this list, never back. */
export const ORDER_PROGRESS = ['pending', 'processing', 'shipped', 'delivered'] as const;
/** Every status an order can have: its progress, or `cancelled`, which ends it from pending or processing (0017). */
export const ORDER_STATUSES = [...ORDER_PROGRESS, 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * An order (0008). Seller, unit price and total are kept on the row, so the order still reads right
 * after its product or store is deleted (those references become null). The buyer and the seller become null
 * when their account is deleted (0022): the other party keeps the order.
 */
export const orders = pgTable('orders', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
  productId: uuid('product_id').references(() => products.id, { onDelete: 'set null' }),
  storeId: uuid('store_id').references(() => stores.id, { onDelete: 'set null' }),
  sellerId: uuid('seller_id').references(() => users.id, { onDelete: 'set null' }),
  quantity: integer('quantity').notNull(),
  unitPrice: numeric('unit_price', { precision: 12, scale: 2 }).notNull(),
  totalPrice: numeric('total_price', { precision: 12, scale: 2 }).notNull(),
  status: text('status', { enum: ORDER_STATUSES }).notNull().default('pending'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A review of a product: one per user and product, rating 1 to 5. */
export const reviews = pgTable('reviews', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  productId: uuid('product_id').notNull().references(() => products.id, { onDelete: 'cascade' }),
  rating: smallint('rating').notNull(),
  comment: text('comment').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export type OrderRow = typeof orders.$inferSelect;
export type ReviewRow = typeof reviews.$inferSelect;
