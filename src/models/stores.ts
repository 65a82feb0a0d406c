import { pgTable, uuid, text, boolean, doublePrecision, integer, timestamp } from 'drizzle-orm/pg-core';
import { geographyPoint } from './geography.js';
import { locations } from './locations.js';
import { users } from './users.js';

/** A user's store (0008). Slugs are unique regardless of case; `is_verified` is set only by administrators. */
export const stores = pgTable('stores', {
  id: uuid('id').primaryKey().defaultRandom(),
  ownerId: uuid('owner_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  slug: text('slug').notNull(),
  description: text('description').notNull().default(''),
  socialUrl: text('social_url').notNull().default(''),
  logo: text('logo'),
  banner: text('banner'),
  locationId: uuid('location_id').references(() => locations.id, { onDelete: 'set null' }),
  /** Public position: the owner's choice, or the location's published centre; never the owner's own point. */
  latitude: doublePrecision('latitude'),
  longitude: doublePrecision('longitude'),
  point: geographyPoint('point'),
  /** References communities once they exist (the foreign key is added with the communities module). */
  communityId: uuid('community_id'),
  /** The location's 17 levels broad to narrow, lower-cased ('' for none): set by triggers (0008), never by the service. */
  placeLevels: text('place_levels').array().notNull().default([]),
  /** Its products' count and newest creation time: kept by triggers on products (0016), never by the service. */
  productsCount: integer('products_count').notNull().default(0),
  lastProductAt: timestamp('last_product_at', { withTimezone: true }),
  isVerified: boolean('is_verified').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export type StoreRow = typeof stores.$inferSelect;
