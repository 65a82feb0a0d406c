import { pgTable, primaryKey, uuid, text, timestamp, integer, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { users } from './users.js';
import { posts } from './posts.js';

// Comments and replies (unlimited depth), their likes and bookmarks (migration 0010_posts_and_comments.sql).
export const comments = pgTable('comments', {
  id: uuid('id').primaryKey().defaultRandom(),
  postId: uuid('post_id').notNull().references(() => posts.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  parentId: uuid('parent_id').references((): AnyPgColumn => comments.id, { onDelete: 'cascade' }),
  content: text('content').notNull(),
  repliesCount: integer('replies_count').notNull().default(0),
  likesCount: integer('likes_count').notNull().default(0),
  bookmarksCount: integer('bookmarks_count').notNull().default(0),
  viewsCount: integer('views_count').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  /** Hidden by moderation (migration 0021): gone for all but its author and staff. */
  hiddenAt: timestamp('hidden_at', { withTimezone: true }),
  /** Migration 0026: when its author last changed its text (null until then). */
  editedAt: timestamp('edited_at', { withTimezone: true }),
});

/** Migration 0026: the versions an edit replaced; they belong to the author. */
export const commentVersions = pgTable('comment_versions', {
  id: uuid('id').primaryKey().defaultRandom(),
  commentId: uuid('comment_id').notNull().references(() => comments.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  content: text('content').notNull(),
  editedAt: timestamp('edited_at', { withTimezone: true }),
  replacedAt: timestamp('replaced_at', { withTimezone: true }).notNull().defaultNow(),
});

const commentReaction = (name: string) =>
  pgTable(
    name,
    {
      commentId: uuid('comment_id').notNull().references(() => comments.id, { onDelete: 'cascade' }),
      userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    },
    (t) => [primaryKey({ columns: [t.commentId, t.userId] })],
  );
export const commentLikes = commentReaction('comment_likes');
export const commentBookmarks = commentReaction('comment_bookmarks');
