import { pgTable, uuid, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';
import { posts } from './posts.js';
import { communities } from './communities.js';

/**
 * Community posts whose members are still to be told `new_post` (migration 0018): one row per post, written in
 * the post's transaction and worked through after its commit (src/modules/posts/community-fanout.service.ts).
 */
export const communityPostFanouts = pgTable('community_post_fanouts', {
  postId: uuid('post_id').primaryKey().references(() => posts.id, { onDelete: 'cascade' }),
  communityId: uuid('community_id').notNull().references(() => communities.id, { onDelete: 'cascade' }),
  actorId: uuid('actor_id').references(() => users.id, { onDelete: 'cascade' }),
  message: text('message').notNull(),
  /** The last member (by user_id) already handled; null: none yet. */
  afterUserId: uuid('after_user_id'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  /** The last time a batch committed (or the row was written): an old one is a fan-out nobody is working on. */
  progressedAt: timestamp('progressed_at', { withTimezone: true }).notNull().defaultNow(),
});
