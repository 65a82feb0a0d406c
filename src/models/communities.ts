import { pgTable, primaryKey, uuid, text, integer, timestamp } from 'drizzle-orm/pg-core';
import { locations } from './locations.js';
import { users } from './users.js';

/** Category groups and their categories (seeded by migration 0009). */
export const communityCategoryGroups = pgTable('community_category_groups', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  position: integer('position').notNull().default(0),
});

export const communityCategories = pgTable('community_categories', {
  id: uuid('id').primaryKey().defaultRandom(),
  groupId: uuid('group_id').notNull().references(() => communityCategoryGroups.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  position: integer('position').notNull().default(0),
});

/** A community. Deleting one deletes the row (and its memberships): a deleted community is gone. */
export const communities = pgTable('communities', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  categoryId: uuid('category_id').notNull().references(() => communityCategories.id),
  avatar: text('avatar'),
  banner: text('banner'),
  locationId: uuid('location_id').references(() => locations.id, { onDelete: 'set null' }),
  ownerId: uuid('owner_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  /** Kept exact by single-statement increments in the transaction of each join and leave. */
  membersCount: integer('members_count').notNull().default(0),
  /** Maintained by the posts module in the transaction of each community post's insert and delete. */
  postsCount: integer('posts_count').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const COMMUNITY_ROLES = ['owner', 'member'] as const;
export type CommunityRole = (typeof COMMUNITY_ROLES)[number];

export const communityMembers = pgTable(
  'community_members',
  {
    communityId: uuid('community_id').notNull().references(() => communities.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: COMMUNITY_ROLES }).notNull().default('member'),
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.communityId, t.userId] })],
);

export type CommunityRow = typeof communities.$inferSelect;
