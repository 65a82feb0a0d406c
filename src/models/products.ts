import { pgTable, uuid, text, integer, numeric, timestamp } from 'drizzle-orm/pg-core';
import { stores } from './stores.js';

export const PRODUCT_CATEGORIES = [
  'electronics', 'apparel', 'home_garden', 'food_beverage', 'health_beauty', 'sports_outdoors', 'toys_games',
  'arts_crafts', 'books_music', 'automotive', 'misc',
] as const;
export type ProductCategory = (typeof PRODUCT_CATEGORIES)[number];

export const PRICE_TYPES = ['fixed', 'negotiable', 'variable'] as const;
export type PriceType = (typeof PRICE_TYPES)[number];

/** A product of a store (0008). `price` is numeric(12,2), read and written as a two-decimal string. */
export const products = pgTable('products', {
  id: uuid('id').primaryKey().defaultRandom(),
  storeId: uuid('store_id').notNull().references(() => stores.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  category: text('category', { enum: PRODUCT_CATEGORIES }).notNull(),
  stock: integer('stock').notNull(),
  priceType: text('price_type', { enum: PRICE_TYPES }).notNull().default('fixed'),
  price: numeric('price', { precision: 12, scale: 2 }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** An image of a product: its storage key under products/images/. */
export const productImages = pgTable('product_images', {
  id: uuid('id').primaryKey().defaultRandom(),
  productId: uuid('product_id').notNull().references(() => products.id, { onDelete: 'cascade' }),
  image: text('image').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export type ProductRow = typeof products.$inferSelect;
export type ProductImageRow = typeof productImages.$inferSelect;
