import { z } from 'zod';
import { created, defineOperation, noContent, ok, type RateLimitRule } from '../../core/operation.js';
import { zPaginated, zNoContent } from '../../core/response-schemas.js';
import { audioField, imageField, zAudioFile, zImageFile } from '../../core/uploads.js';
import { orRequired, zBool, zOptionalText, zPage, zPageSize, zUuid } from '../../core/validation.js';
import { POST_TYPES } from '../../models/index.js';
import { createPost } from './create.service.js';
import { votePoll } from './polls.service.js';
import { togglePostBookmark, togglePostLike } from './reactions.service.js';
import { deletePost, getPost, reactedPosts, userAnalytics } from './posts.service.js';
import { popularLocations } from './popular-locations.js';
import { trackView } from './views.service.js';
import { editPost, postHistory, zPostVersion } from './edits.service.js';
import { zPollData, zPostBody } from './posts.serializer.js';
import { startStatsCoalescer } from './stats-coalescer.js';
import { startCommunityFanoutWorker } from './community-fanout.worker.js';
import './posts.channel.js';

startStatsCoalescer();
startCommunityFanoutWorker();

/** Text of posts and comments (DESIGN.md section 8). */
export const TEXT_MAX = 5000;
export const MEDIA_MAX_FILES = 4;
export const POLL_OPTIONS_MAX = 10;

/** Rate limits (docs/limits.md): reads are generous, per user or per IP for anonymous callers. */
export const READ_LIMIT: RateLimitRule = { name: 'reader', points: 600, durationSeconds: 60, key: 'user' };
const perUser = (points: number): RateLimitRule => ({ name: 'user', points, durationSeconds: 60, key: 'user' });

export const zText = (field = 'content') =>
  z.string({ error: orRequired(`Enter the ${field} as text.`) }).max(TEXT_MAX, `Ensure this field has no more than ${TEXT_MAX} characters.`);

/**
 * A list field from JSON (an array) or a multipart form: the field repeated (or `name[0]`, `name[1]`, ...), which the
 * form parser gives as an array, or one field holding a JSON array as text. One field that is not a JSON array is a
 * list of one (so a single value that starts with `[` must be sent as a JSON array).
 */
export const formList = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  const s = v.trim();
  if (s.startsWith('[')) {
    try {
      return JSON.parse(s);
    } catch {
      return v;
    }
  }
  return [v];
};

const zStringList = () =>
  z.preprocess(formList, z.array(z.string({ error: 'Each option must be text.' }).trim().min(1, 'An option may not be blank.').max(200, 'Ensure each option has no more than 200 characters.'), { error: 'Send a list of options.' }));

/** DESIGN.md section 13: what apps show in place of the content until tapped, and what an image shows. */
export const CONTENT_WARNING_MAX = 200;
export const ALT_TEXT_MAX = 1500;

/** A content warning: blank or null is none. */
export const zContentWarning = () =>
  z.preprocess(
    (v) => (v === null || (typeof v === 'string' && v.trim() === '') ? null : v),
    z.string({ error: 'Enter the content warning as text.' }).trim().max(CONTENT_WARNING_MAX, `Ensure this field has no more than ${CONTENT_WARNING_MAX} characters.`).nullable(),
  );

/** Alt texts in the order of the images; a blank or null entry is none for that image. */
export const zAltTexts = () =>
  z.preprocess(
    formList,
    z.array(
      z.preprocess(
        (v) => (v === null || (typeof v === 'string' && v.trim() === '') ? null : v),
        z.string({ error: 'Each alt text must be text or null.' }).trim().max(ALT_TEXT_MAX, `Ensure each alt text has no more than ${ALT_TEXT_MAX} characters.`).nullable(),
      ),
      { error: 'Send a list of alt texts, one per image in order.' },
    ),
  );

const zFutureDate = () =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? new Date(v) : v === '' ? undefined : v),
    z
      .date({ error: 'Enter a valid date/time (ISO 8601).' })
      .refine((d) => !Number.isNaN(d.getTime()), 'Enter a valid date/time (ISO 8601).')
      .refine((d) => d.getTime() > Date.now(), 'The poll must expire in the future.')
      .optional(),
  );

/** An instant (ISO 8601) for the neighbourhood kinds; blank or null is none. */
const zInstant = () =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? new Date(v) : v === '' || v === null ? undefined : v),
    z
      .date({ error: 'Enter a valid date/time (ISO 8601).' })
      .refine((d) => !Number.isNaN(d.getTime()), 'Enter a valid date/time (ISO 8601).')
      .optional(),
  );
/** An event's capacity: a whole number of people from 1; blank or null is unlimited. */
const zCapacity = () =>
  z.preprocess(
    (v) => (v === '' || v === null ? undefined : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
    z.number({ error: 'A valid integer is required.' }).int('A valid integer is required.').min(1, 'Ensure this value is greater than or equal to 1.').max(1_000_000, 'Ensure this value is less than or equal to 1000000.').optional(),
  );
const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);
/** Fields of one kind only (DESIGN.md section 13): sent with another type, they are refused by name. */
const KIND_FIELDS = {
  event: ['event_starts_at', 'event_ends_at', 'event_place_name', 'event_address', 'event_capacity'],
  lost_found: ['lost_found_status'],
  recommendation: ['recommended_store_id'],
} as const;
const KIND_LABEL = { event: 'event', lost_found: 'lost and found', recommendation: 'recommendation' } as const;

const zFiles = () => z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(zImageFile()).max(MEDIA_MAX_FILES, `At most ${MEDIA_MAX_FILES} images.`).optional());

const SHARE_FIELD = { product_share: 'shared_product_id', store_share: 'shared_store_id', community_share: 'shared_community_id' } as const;
const SHARE_LABEL = { product_share: 'product share', store_share: 'store share', community_share: 'community share' } as const;
/** A poll without an expiry runs for a week. */
const DEFAULT_POLL_DAYS = 7;

export const zCreatePostInput = z
  .object({
    post_type: z.enum(POST_TYPES, { error: (i) => (i.input === undefined ? 'This field is required.' : `"${String(i.input)}" is not a valid choice.`) }),
    content: z.preprocess((v) => (v === null ? undefined : v), zText().optional()),
    title: zOptionalText(255),
    content_warning: zContentWarning().optional(),
    media_alt_texts: zAltTexts().optional(),
    community_id: z.preprocess((v) => (v === '' || v === null ? undefined : v), zUuid().optional()),
    shared_product_id: z.preprocess((v) => (v === '' || v === null ? undefined : v), zUuid().optional()),
    shared_store_id: z.preprocess((v) => (v === '' || v === null ? undefined : v), zUuid().optional()),
    shared_community_id: z.preprocess((v) => (v === '' || v === null ? undefined : v), zUuid().optional()),
    poll_question: zOptionalText(500),
    poll_options: zStringList().optional(),
    poll_allows_multiple: z.preprocess((v) => (v === '' || v === null ? undefined : v), zBool().optional()),
    poll_expires_at: zFutureDate(),
    audio_file: zAudioFile().optional(),
    media: zFiles(),
    event_starts_at: zInstant(),
    event_ends_at: zInstant(),
    event_place_name: zOptionalText(200),
    event_address: zOptionalText(500),
    event_capacity: zCapacity(),
    lost_found_status: z.preprocess(blankToUndefined, z.enum(['lost', 'found'], { error: (i) => `"${String(i.input)}" is not a valid choice.` }).optional()),
    recommended_store_id: z.preprocess(blankToUndefined, zUuid().optional()),
  })
  .superRefine((v, issue) => {
    const fail = (path: string, message: string) => issue.addIssue({ code: 'custom', path: [path], message });
    const type = v.post_type;
    if (type === 'text' && !v.content?.trim()) fail('content', 'This field may not be blank.');
    if (type === 'image' && !v.media?.length) fail('media', 'Attach at least one image to an image post.');
    if (type !== 'image' && v.media?.length) fail('media', 'Only image posts carry images.');
    if (v.media_alt_texts?.length && v.media_alt_texts.length > (v.media?.length ?? 0)) {
      fail('media_alt_texts', `Send at most one alt text per image (${v.media?.length ?? 0} attached).`);
    }
    if (type === 'audio' && !v.audio_file) fail('audio_file', 'This field is required for audio posts.');
    if (type !== 'audio' && v.audio_file) fail('audio_file', 'Only audio posts carry an audio file.');
    if (type === 'poll') {
      if (!v.poll_question?.trim()) fail('poll_question', 'This field is required for poll posts.');
      if (!v.poll_options || v.poll_options.length < 2) fail('poll_options', 'At least 2 poll options are required.');
      else if (v.poll_options.length > POLL_OPTIONS_MAX) fail('poll_options', `At most ${POLL_OPTIONS_MAX} poll options.`);
      else if (new Set(v.poll_options.map((o) => o.toLowerCase())).size !== v.poll_options.length) fail('poll_options', 'Poll options must differ from each other.');
    }
    if (type === 'product_share' || type === 'store_share' || type === 'community_share') {
      if (!v[SHARE_FIELD[type]]) fail(SHARE_FIELD[type], `This field is required for ${SHARE_LABEL[type]} posts.`);
    }
    for (const [kind, fields] of Object.entries(KIND_FIELDS) as Array<[keyof typeof KIND_FIELDS, readonly string[]]>) {
      if (kind === type) continue;
      for (const field of fields) if ((v as Record<string, unknown>)[field] !== undefined) fail(field, `Only ${KIND_LABEL[kind]} posts carry ${field}.`);
    }
    if (type === 'event') {
      if (!v.title?.trim()) fail('title', 'This field is required for event posts.');
      if (!v.event_starts_at) fail('event_starts_at', 'This field is required for event posts.');
      else if (v.event_starts_at.getTime() <= Date.now()) fail('event_starts_at', 'The event must start in the future.');
      if (v.event_starts_at && v.event_ends_at && v.event_ends_at.getTime() <= v.event_starts_at.getTime()) fail('event_ends_at', 'The event must end after it starts.');
    }
    if (type === 'lost_found') {
      if (!v.lost_found_status) fail('lost_found_status', 'This field is required for lost and found posts.');
      if (!v.content?.trim()) fail('content', 'This field may not be blank.');
    }
    if (type === 'recommendation' && !v.recommended_store_id) fail('recommended_store_id', 'This field is required for recommendation posts.');
    if (type === 'alert') {
      if (!v.content?.trim()) fail('content', 'This field may not be blank.');
      if (v.community_id) fail('community_id', 'An alert goes to the place you live in, not to a community.');
    }
  })
  .transform((v) => (v.post_type === 'poll' && !v.poll_expires_at ? { ...v, poll_expires_at: new Date(Date.now() + DEFAULT_POLL_DAYS * 86_400_000) } : v));

const zPostId = z.object({ post_id: zUuid() });
export const zLikeAnswer = z.object({ message: z.string(), liked: z.boolean(), likes_count: z.number().int() });
const zBookmarkAnswer = z.object({ message: z.string(), bookmarked: z.boolean(), bookmarks_count: z.number().int() });

export const createPostOp = defineOperation({
  name: 'posts.create',
  method: 'POST',
  path: '/api/feed/posts/',
  auth: 'user',
  summary: 'Create a post of any type (images in the multipart field `media`, audio in `audio_file`)',
  tags: ['posts'],
  files: [imageField('media', MEDIA_MAX_FILES), audioField('audio_file')],
  input: zCreatePostInput,
  rateLimits: [perUser(30)],
  responses: { 201: zPostBody },
  handler: async (input, ctx) => created(await createPost(ctx, input)),
});

export const getPostOp = defineOperation({
  name: 'posts.get',
  method: 'GET',
  path: '/api/feed/posts/{post_id}/',
  auth: 'optional',
  summary: 'One post, with has_liked, has_bookmarked and user_voted for the caller',
  tags: ['posts'],
  input: zPostId,
  rateLimits: [READ_LIMIT],
  responses: { 200: zPostBody },
  errors: [403],
  handler: async (input, ctx) => ok(await getPost(ctx, input.post_id)),
});

export const deletePostOp = defineOperation({
  name: 'posts.delete',
  method: 'DELETE',
  path: '/api/feed/posts/{post_id}/',
  auth: 'user',
  summary: 'Delete a post (author only)',
  tags: ['posts'],
  input: zPostId,
  rateLimits: [perUser(60)],
  responses: { 204: zNoContent },
  errors: [403],
  handler: async (input, ctx) => {
    await deletePost(ctx, input.post_id);
    return noContent();
  },
});

/** What an edit may not change (DESIGN.md section 13): named, so that a client sending one learns it is refused. */
const FIXED_ON_EDIT: Record<string, string> = {
  post_type: "A post's type cannot change.",
  poll_question: "A poll's question and options cannot change.",
  poll_options: "A poll's question and options cannot change.",
  poll_allows_multiple: "A poll's question and options cannot change.",
  poll_expires_at: "A poll's question and options cannot change.",
  community_id: 'A post cannot move.',
  media: 'Images cannot be added or removed; edit their alt texts with media_alt_texts.',
  // The neighbourhood kinds (DESIGN.md section 13; docs/modules/posts.md, "Decisions where DESIGN is silent").
  event_starts_at: "An event's time, place and capacity cannot change.",
  event_ends_at: "An event's time, place and capacity cannot change.",
  event_place_name: "An event's time, place and capacity cannot change.",
  event_address: "An event's time, place and capacity cannot change.",
  event_capacity: "An event's time, place and capacity cannot change.",
  lost_found_status: 'What was reported cannot change; resolve it with POST /api/feed/posts/{post_id}/resolve/.',
  recommended_store_id: "A recommendation's store cannot change.",
};
const EDITABLE = ['content', 'title', 'content_warning', 'media_alt_texts'] as const;

export const zEditPostInput = z
  .object({
    post_id: zUuid(),
    content: zText().optional(),
    title: z.preprocess((v) => (v === '' ? null : v), z.string({ error: 'Enter the title as text.' }).max(255, 'Ensure this field has no more than 255 characters.').nullable().optional()),
    content_warning: zContentWarning().optional(),
    media_alt_texts: zAltTexts().optional(),
  })
  .catchall(z.unknown())
  .superRefine((v, issue) => {
    for (const [field, message] of Object.entries(FIXED_ON_EDIT)) if (v[field] !== undefined) issue.addIssue({ code: 'custom', path: [field], message });
    if (!EDITABLE.some((field) => v[field] !== undefined)) issue.addIssue({ code: 'custom', path: ['non_field_errors'], message: `Send at least one of ${EDITABLE.join(', ')}.` });
  })
  .transform(({ post_id, content, title, content_warning, media_alt_texts }) => ({ post_id, content, title, content_warning, media_alt_texts }));

export const editPostOp = defineOperation({
  name: 'posts.edit',
  method: 'PATCH',
  path: '/api/feed/posts/{post_id}/',
  auth: 'user',
  summary: "Edit a post's text, content warning or alt texts (author only); the version replaced is kept in its history",
  tags: ['posts'],
  input: zEditPostInput,
  rateLimits: [perUser(30)],
  responses: { 200: zPostBody },
  errors: [403],
  handler: async (input, ctx) => ok(await editPost(ctx, input)),
});

export const postHistoryOp = defineOperation({
  name: 'posts.history',
  method: 'GET',
  path: '/api/feed/posts/{post_id}/history/',
  auth: 'optional',
  summary: 'Earlier versions of a post, newest first, for whoever may read it',
  tags: ['posts'],
  input: z.object({ post_id: zUuid(), page: zPage(), page_size: zPageSize() }),
  rateLimits: [READ_LIMIT],
  responses: { 200: zPaginated(zPostVersion) },
  handler: async (input, ctx) => ok(await postHistory(ctx, input)),
});

export const likePostOp = defineOperation({
  name: 'posts.like',
  method: 'POST',
  path: '/api/feed/posts/{post_id}/like/',
  auth: 'user',
  summary: 'Toggle the caller’s like; answers the new state and count',
  tags: ['posts'],
  input: zPostId,
  rateLimits: [perUser(300)],
  responses: { 200: zLikeAnswer },
  errors: [403],
  handler: async (input, ctx) => ok(await togglePostLike(ctx, input.post_id)),
});

export const bookmarkPostOp = defineOperation({
  name: 'posts.bookmark',
  method: 'POST',
  path: '/api/feed/posts/{post_id}/bookmark/',
  auth: 'user',
  summary: 'Toggle the caller’s bookmark; answers the new state and count',
  tags: ['posts'],
  input: zPostId,
  rateLimits: [perUser(300)],
  responses: { 200: zBookmarkAnswer },
  errors: [403],
  handler: async (input, ctx) => ok(await togglePostBookmark(ctx, input.post_id)),
});

const zLabel = () => zOptionalText(50);

export const trackViewOp = defineOperation({
  name: 'posts.track_view',
  method: 'POST',
  path: '/api/feed/posts/{post_id}/track_view/',
  auth: 'optional',
  summary: 'Count a view, at most once per viewer and post in 30 minutes',
  tags: ['posts'],
  input: z.object({ post_id: zUuid(), device_type: zLabel(), referrer_type: zLabel() }),
  rateLimits: [READ_LIMIT],
  responses: {
    200: z.union([
      z.object({ message: z.string(), view_recorded: z.literal(true), views_count: z.number().int() }),
      z.object({ message: z.string(), view_recorded: z.literal(false), views_count: z.number().int(), cooldown_remaining_seconds: z.number().int() }),
    ]),
  },
  errors: [403],
  handler: async (input, ctx) => ok(await trackView(ctx, input)),
});

export const votePollOp = defineOperation({
  name: 'posts.vote_poll',
  method: 'POST',
  path: '/api/feed/posts/{post_id}/vote_poll/',
  auth: 'user',
  summary: 'Vote: {option_ids} (multiple choice) or {option_id} (single choice; replaces an earlier vote)',
  tags: ['posts'],
  input: z.object({
    post_id: zUuid(),
    option_id: z.preprocess((v) => (v === '' || v === null ? undefined : v), zUuid().optional()),
    option_ids: z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(zUuid(), { error: 'Send a list of option ids.' }).optional()),
  }),
  rateLimits: [perUser(60)],
  responses: { 200: z.object({ message: z.string(), voted_options: z.array(z.string()), poll_data: zPollData }) },
  errors: [403],
  handler: async (input, ctx) => ok(await votePoll(ctx, input)),
});

const zPageInput = z.object({ page: zPage(), page_size: zPageSize() });

export const likedPostsOp = defineOperation({
  name: 'posts.liked',
  method: 'GET',
  path: '/api/feed/posts/liked/',
  auth: 'user',
  summary: 'Posts the caller liked, most recent like first',
  tags: ['posts'],
  input: zPageInput,
  rateLimits: [READ_LIMIT],
  responses: { 200: zPaginated(zPostBody) },
  handler: async (input, ctx) => ok(await reactedPosts(ctx, 'post_likes', '/api/feed/posts/liked/', input)),
});

export const bookmarkedPostsOp = defineOperation({
  name: 'posts.bookmarked',
  method: 'GET',
  path: '/api/feed/posts/bookmarked/',
  auth: 'user',
  summary: 'Posts the caller bookmarked, most recent bookmark first',
  tags: ['posts'],
  input: zPageInput,
  rateLimits: [READ_LIMIT],
  responses: { 200: zPaginated(zPostBody) },
  handler: async (input, ctx) => ok(await reactedPosts(ctx, 'post_bookmarks', '/api/feed/posts/bookmarked/', input)),
});

export const popularLocationsOp = defineOperation({
  name: 'posts.popular_locations',
  method: 'GET',
  path: '/api/feed/posts/popular_locations/',
  auth: 'optional',
  summary: 'The 20 locations with the most posts, counted every minute',
  tags: ['posts'],
  input: z.object({}),
  rateLimits: [READ_LIMIT],
  responses: {
    200: z.object({
      count: z.number().int(),
      locations: z.array(
        z.object({ id: z.string(), name: z.string(), post_count: z.number().int(), country: z.string().nullable(), state: z.string().nullable(), city: z.string().nullable(), neighbourhood: z.string().nullable() }),
      ),
    }),
  },
  handler: async () => ok(await popularLocations()),
});

export const userAnalyticsOp = defineOperation({
  name: 'posts.user_analytics',
  method: 'GET',
  path: '/api/feed/posts/user_analytics/',
  auth: 'user',
  summary: "The caller's own viewing: counted views, distinct posts, repeats, places, views per day",
  tags: ['posts'],
  input: z.object({}),
  rateLimits: [READ_LIMIT],
  responses: {
    200: z.object({
      total_views: z.number().int(),
      unique_posts_viewed: z.number().int(),
      repeat_view_ratio: z.number(),
      popular_locations: z.array(z.object({ post__location__name: z.string(), view_count: z.number().int() })),
      avg_views_per_day: z.number(),
    }),
  },
  handler: async (_input, ctx) => ok(await userAnalytics(ctx)),
});

export const postOperations = [
  createPostOp,
  getPostOp,
  deletePostOp,
  editPostOp,
  postHistoryOp,
  likePostOp,
  bookmarkPostOp,
  trackViewOp,
  votePollOp,
  likedPostsOp,
  bookmarkedPostsOp,
  popularLocationsOp,
  userAnalyticsOp,
];
