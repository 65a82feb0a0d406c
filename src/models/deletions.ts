import { pgTable, primaryKey, uuid, text, timestamp } from 'drizzle-orm/pg-core';

export const DELETION_TYPES = ['post', 'comment', 'message'] as const;
export type DeletionType = (typeof DELETION_TYPES)[number];

/**
 * A tombstone: an item that went away, with the audience columns that decide who could have seen it
 * (migration 0019). No foreign keys: what they name is gone. Written only by src/modules/deletions.
 */
export const deletions = pgTable('deletions', {
  id: uuid('id').primaryKey().defaultRandom(),
  type: text('type', { enum: DELETION_TYPES }).notNull(),
  itemId: uuid('item_id').notNull(),
  deletedAt: timestamp('deleted_at', { withTimezone: true }).notNull().defaultNow(),
  authorId: uuid('author_id'),
  locationId: uuid('location_id'),
  communityId: uuid('community_id'),
  postId: uuid('post_id'),
  conversationId: uuid('conversation_id'),
});

/** Who was a member of a community when it was deleted (its memberships go with it). */
export const deletedCommunityMembers = pgTable(
  'deleted_community_members',
  {
    userId: uuid('user_id').notNull(),
    communityId: uuid('community_id').notNull(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.communityId] })],
);
