import { pgTable, primaryKey, uuid, text, boolean, timestamp, integer, jsonb, unique } from 'drizzle-orm/pg-core';
import { users } from './users.js';
import { locations } from './locations.js';

// Posts, their likes, bookmarks, views, polls and audio (migration 0010_posts_and_comments.sql).
export const POST_TYPES = ['text', 'image', 'product_share', 'store_share', 'community_share', 'poll', 'audio', 'event', 'lost_found', 'recommendation', 'alert'] as const;
export type PostType = (typeof POST_TYPES)[number];

export const posts = pgTable('posts', {
  id: uuid('id').primaryKey().defaultRandom(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  postType: text('post_type', { enum: POST_TYPES }).notNull(),
  title: text('title'),
  content: text('content').notNull().default(''),
  locationId: uuid('location_id').references(() => locations.id, { onDelete: 'set null' }),
  communityId: uuid('community_id'),
  sharedProductId: uuid('shared_product_id'),
  sharedStoreId: uuid('shared_store_id'),
  sharedCommunityId: uuid('shared_community_id'),
  likesCount: integer('likes_count').notNull().default(0),
  bookmarksCount: integer('bookmarks_count').notNull().default(0),
  commentsCount: integer('comments_count').notNull().default(0),
  viewsCount: integer('views_count').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  /** Hidden by moderation (migration 0021): gone for all but its author and staff. */
  hiddenAt: timestamp('hidden_at', { withTimezone: true }),
  /** Migration 0026: when its author last changed its text (null until then), and the warning shown in place of it. */
  editedAt: timestamp('edited_at', { withTimezone: true }),
  contentWarning: text('content_warning'),
  /** Migration 0027: a lost_found post's report (lost or found) and when its author resolved it. */
  lostFoundStatus: text('lost_found_status', { enum: ['lost', 'found'] }),
  resolvedAt: timestamp('resolved_at', { withTimezone: true }),
});
export type PostRow = typeof posts.$inferSelect;

export const postMedia = pgTable(
  'post_media',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    postId: uuid('post_id').notNull().references(() => posts.id, { onDelete: 'cascade' }),
    file: text('file').notNull(),
    mediaType: text('media_type').notNull().default('image'),
    position: integer('position').notNull(),
    /** Migration 0026: what the image shows, for screen readers (at most 1,500 characters). */
    altText: text('alt_text'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique().on(t.postId, t.position)],
);

/** Migration 0026: the versions an edit replaced, newest last written; they belong to the author. */
export const postVersions = pgTable('post_versions', {
  id: uuid('id').primaryKey().defaultRandom(),
  postId: uuid('post_id').notNull().references(() => posts.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  title: text('title'),
  content: text('content').notNull(),
  contentWarning: text('content_warning'),
  editedAt: timestamp('edited_at', { withTimezone: true }),
  replacedAt: timestamp('replaced_at', { withTimezone: true }).notNull().defaultNow(),
});

const userReaction = (name: string) =>
  pgTable(
    name,
    {
      postId: uuid('post_id').notNull().references(() => posts.id, { onDelete: 'cascade' }),
      userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    },
    (t) => [primaryKey({ columns: [t.postId, t.userId] })],
  );
export const postLikes = userReaction('post_likes');
export const postBookmarks = userReaction('post_bookmarks');

export const postViews = pgTable('post_views', {
  id: uuid('id').primaryKey().defaultRandom(),
  postId: uuid('post_id').notNull().references(() => posts.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
  deviceType: text('device_type'),
  referrerType: text('referrer_type'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const postViewCooldowns = pgTable(
  'post_view_cooldowns',
  {
    postId: uuid('post_id').notNull().references(() => posts.id, { onDelete: 'cascade' }),
    viewerKey: text('viewer_key').notNull(),
    viewedAt: timestamp('viewed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.postId, t.viewerKey] })],
);

export const polls = pgTable('polls', {
  id: uuid('id').primaryKey().defaultRandom(),
  postId: uuid('post_id').notNull().unique().references(() => posts.id, { onDelete: 'cascade' }),
  question: text('question').notNull(),
  allowsMultipleChoices: boolean('allows_multiple_choices').notNull().default(false),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  expiryAnnouncedAt: timestamp('expiry_announced_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const pollOptions = pgTable(
  'poll_options',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    pollId: uuid('poll_id').notNull().references(() => polls.id, { onDelete: 'cascade' }),
    optionText: text('option_text').notNull(),
    position: integer('position').notNull(),
    votesCount: integer('votes_count').notNull().default(0),
  },
  (t) => [unique().on(t.pollId, t.position)],
);

export const pollVotes = pgTable(
  'poll_votes',
  {
    pollId: uuid('poll_id').notNull().references(() => polls.id, { onDelete: 'cascade' }),
    optionId: uuid('option_id').notNull().references(() => pollOptions.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.optionId, t.userId] })],
);

export const postAudio = pgTable('post_audio', {
  id: uuid('id').primaryKey().defaultRandom(),
  postId: uuid('post_id').notNull().unique().references(() => posts.id, { onDelete: 'cascade' }),
  file: text('file').notNull(),
  durationSeconds: integer('duration_seconds').notNull(),
  transcription: text('transcription'),
  waveformData: jsonb('waveform_data'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Migration 0027: an event post's time, place and capacity (null: no limit); the counts follow event_rsvps. */
export const postEvents = pgTable('post_events', {
  postId: uuid('post_id').primaryKey().references(() => posts.id, { onDelete: 'cascade' }),
  startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
  endsAt: timestamp('ends_at', { withTimezone: true }),
  placeName: text('place_name'),
  address: text('address'),
  capacity: integer('capacity'),
  goingCount: integer('going_count').notNull().default(0),
  interestedCount: integer('interested_count').notNull().default(0),
  remindedAt: timestamp('reminded_at', { withTimezone: true }),
});

export const RSVP_STATUSES = ['going', 'interested'] as const;
export const eventRsvps = pgTable(
  'event_rsvps',
  {
    postId: uuid('post_id').notNull().references(() => postEvents.postId, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: RSVP_STATUSES }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.postId, t.userId] })],
);
