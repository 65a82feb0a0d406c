import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { currentDb, type DbOrTx } from '../../platform/db.js';
import type { PostType } from '../../models/index.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import { loadCommunitySummaries, type CommunitySummary } from '../communities/summaries.js';
import { loadProductSummaries, loadStoreSummaries, type ProductSummary, type StoreSummary } from '../stores/summaries.js';
import { loadEventsOfPosts, type EventRecord } from './event-posts.queries.js';

/**
 * Reads of posts with everything their object shows, for a page of ids at once: one query for the posts
 * (author, location name and the viewer's like/bookmark joined), then one per kind of attachment present in
 * the page (media, polls with options and the viewer's votes, audio). Never one query per post.
 */
export interface PostAuthor {
  id: string;
  username: string;
  displayName: string;
  profilePicture: string | null;
}

export interface PollOptionRecord {
  id: string;
  optionText: string;
  position: number;
  votesCount: number;
}

export interface PollRecord {
  id: string;
  question: string;
  allowsMultipleChoices: boolean;
  expiresAt: Date;
  options: PollOptionRecord[];
  /** The options the viewer voted for (empty for an anonymous viewer). */
  viewerOptionIds: string[];
}

export interface AudioRecord {
  id: string;
  file: string;
  durationSeconds: number;
  transcription: string | null;
  waveformData: unknown;
}

export interface MediaRecord {
  id: string;
  file: string;
  mediaType: string;
  position: number;
  altText: string | null;
}

export interface PostRecord {
  id: string;
  postType: PostType;
  title: string | null;
  content: string;
  contentWarning: string | null;
  /** Migration 0029: its hashtags, lower case, in order of first use. */
  tags: string[];
  locationId: string | null;
  locationName: string | null;
  communityId: string | null;
  sharedProductId: string | null;
  sharedStoreId: string | null;
  sharedCommunityId: string | null;
  likesCount: number;
  commentsCount: number;
  viewsCount: number;
  createdAt: Date;
  updatedAt: Date;
  editedAt: Date | null;
  author: PostAuthor;
  hasLiked: boolean;
  hasBookmarked: boolean;
  /** Hidden by moderation: never serialized; the post rule decides who may still read it. */
  hidden: boolean;
  media: MediaRecord[];
  poll: PollRecord | null;
  audio: AudioRecord | null;
  /** Migration 0027: an event post's time, place and counts with the viewer's RSVP; a lost_found post's report. */
  event: EventRecord | null;
  lostFoundStatus: 'lost' | 'found' | null;
  resolvedAt: Date | null;
  /** Filled from the communities and marketplace modules' summaries (one query per kind per page). */
  communityName: string | null;
  sharedProduct: ProductSummary | null;
  sharedStore: StoreSummary | null;
  sharedCommunity: CommunitySummary | null;
}

/** A post row as `postColumns` selects it. */
export type PostSqlRow = {
  id: string;
  post_type: PostType;
  title: string | null;
  content: string;
  content_warning: string | null;
  tags: string[];
  location_id: string | null;
  location_name: string | null;
  community_id: string | null;
  shared_product_id: string | null;
  shared_store_id: string | null;
  shared_community_id: string | null;
  likes_count: number;
  comments_count: number;
  views_count: number;
  created_at: Date;
  updated_at: Date;
  edited_at: Date | null;
  lost_found_status: 'lost' | 'found' | null;
  resolved_at: Date | null;
  user_id: string;
  username: string;
  display_name: string;
  profile_picture: string | null;
  has_liked: boolean;
  has_bookmarked: boolean;
  hidden: boolean;
};

const asDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/**
 * Posts by id, in the order of `ids` (missing ids are skipped), as `viewerId` sees them (null: anonymous).
 * `baseUrl` builds the URLs inside the embedded summaries (shared product, store, community): the caller's
 * own answers pass `ctx.baseUrl`, pushed payloads the server's base.
 */
export async function loadPosts(ids: readonly string[], viewerId: string | null, db: DbOrTx = currentDb(), baseUrl: string = serverBaseUrl()): Promise<PostRecord[]> {
  if (!ids.length) return [];
  const idList = sql.param([...ids]);
  const { rows } = await db.execute<PostSqlRow>(sql`
    SELECT ${postColumns(viewerId)}
    FROM posts p
    JOIN users u ON u.id = p.user_id
    LEFT JOIN locations l ON l.id = p.location_id
    WHERE p.id = ANY(${idList}::uuid[])`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return completePosts(
    ids.map((id) => byId.get(id)).filter((r): r is PostSqlRow => Boolean(r)),
    viewerId,
    db,
    baseUrl,
  );
}

/**
 * A text post in its author's own location, written and read back as `postColumns` selects it, in one
 * statement: it commits on its own, so the commonest post needs no transaction and one round trip. Null
 * when the author has no location (nothing is written then). Nobody has liked or bookmarked a new post.
 */
export async function insertTextPostAtHome(
  userId: string,
  text: { title: string | null; content: string; contentWarning: string | null },
  db: DbOrTx = currentDb(),
): Promise<PostSqlRow | null> {
  const { rows } = await db.execute<PostSqlRow>(sql`
    WITH p AS (
      INSERT INTO posts (user_id, post_type, title, content, content_warning, location_id)
      SELECT u.id, 'text', ${text.title}, ${text.content}, ${text.contentWarning}, u.location_id FROM users u WHERE u.id = ${userId}::uuid AND u.location_id IS NOT NULL
      RETURNING *)
    SELECT ${postColumns(null)}
    FROM p JOIN users u ON u.id = p.user_id LEFT JOIN locations l ON l.id = p.location_id`);
  return rows[0] ?? null;
}

/**
 * The select list of a post row as `completePosts` takes it, over `posts p JOIN users u ON u.id = p.user_id
 * LEFT JOIN locations l ON l.id = p.location_id`, with the viewer's like and bookmark: for a statement that
 * reads the posts together with something else (the feeds read a ranked page and its posts in one statement).
 */
export function postColumns(viewerId: string | SQLWrapper | null): SQL {
  return sql`p.id, p.post_type, p.title, p.content, p.content_warning, p.tags, p.location_id, l.name AS location_name, p.community_id,
           p.shared_product_id, p.shared_store_id, p.shared_community_id,
           p.likes_count, p.comments_count, p.views_count, p.created_at, p.updated_at, p.edited_at, p.lost_found_status, p.resolved_at,
           u.id AS user_id, u.username, u.display_name, u.profile_picture, p.hidden_at IS NOT NULL AS hidden,
           ${viewerId ? sql`EXISTS (SELECT 1 FROM post_likes pl WHERE pl.post_id = p.id AND pl.user_id = ${viewerId}::uuid)` : sql`false`} AS has_liked,
           ${viewerId ? sql`EXISTS (SELECT 1 FROM post_bookmarks pb WHERE pb.post_id = p.id AND pb.user_id = ${viewerId}::uuid)` : sql`false`} AS has_bookmarked`;
}

/**
 * Post rows read with `postColumns`, in the order given, made whole: attachments (one query per kind present
 * in the page: media, polls with the viewer's votes, audio) and the embedded summaries.
 */
export async function completePosts(rows: readonly PostSqlRow[], viewerId: string | null, db: DbOrTx = currentDb(), baseUrl: string = serverBaseUrl()): Promise<PostRecord[]> {
  const pollIds = rows.filter((r) => r.post_type === 'poll').map((r) => r.id);
  const audioIds = rows.filter((r) => r.post_type === 'audio').map((r) => r.id);
  const mediaIds = rows.filter((r) => r.post_type === 'image').map((r) => r.id);
  const eventIds = rows.filter((r) => r.post_type === 'event').map((r) => r.id);
  const [media, pollsByPost, audio, events] = await Promise.all([
    loadMedia(mediaIds, db),
    loadPollsOfPosts(pollIds, viewerId, db),
    loadAudio(audioIds, db),
    loadEventsOfPosts(eventIds, viewerId, db),
  ]);
  const posts = rows.map(
    (r): PostRecord => ({
      id: r.id,
      postType: r.post_type,
      title: r.title,
      content: r.content,
      contentWarning: r.content_warning,
      tags: r.tags ?? [],
      locationId: r.location_id,
      locationName: r.location_name,
      communityId: r.community_id,
      sharedProductId: r.shared_product_id,
      sharedStoreId: r.shared_store_id,
      sharedCommunityId: r.shared_community_id,
      likesCount: r.likes_count,
      commentsCount: r.comments_count,
      viewsCount: r.views_count,
      createdAt: asDate(r.created_at),
      updatedAt: asDate(r.updated_at),
      editedAt: r.edited_at ? asDate(r.edited_at) : null,
      author: { id: r.user_id, username: r.username, displayName: r.display_name, profilePicture: r.profile_picture },
      hasLiked: r.has_liked,
      hasBookmarked: r.has_bookmarked,
      hidden: r.hidden,
      media: media.get(r.id) ?? [],
      poll: pollsByPost.get(r.id) ?? null,
      audio: audio.get(r.id) ?? null,
      event: events.get(r.id) ?? null,
      lostFoundStatus: r.lost_found_status,
      resolvedAt: r.resolved_at ? asDate(r.resolved_at) : null,
      communityName: null,
      sharedProduct: null,
      sharedStore: null,
      sharedCommunity: null,
    }),
  );
  await attachSummaries(posts, baseUrl);
  return posts;
}

export async function loadPost(id: string, viewerId: string | null, db: DbOrTx = currentDb(), baseUrl: string = serverBaseUrl()): Promise<PostRecord | null> {
  const [post] = await loadPosts([id], viewerId, db, baseUrl);
  return post ?? null;
}

const present = (values: Array<string | null>) => [...new Set(values.filter((v): v is string => Boolean(v)))];

/**
 * The community name of community posts and what share posts share, from the owning modules' summaries: one
 * query per kind for the whole page (they run in the current transaction, if any). A shared object that no
 * longer exists is shown as null.
 */
async function attachSummaries(posts: PostRecord[], baseUrl: string): Promise<void> {
  const communityIds = present(posts.flatMap((p) => [p.communityId, p.sharedCommunityId]));
  const productIds = present(posts.map((p) => p.sharedProductId));
  const storeIds = present(posts.map((p) => p.sharedStoreId));
  const communities = communityIds.length ? await loadCommunitySummaries(communityIds, baseUrl) : new Map();
  const products = productIds.length ? await loadProductSummaries(productIds, baseUrl) : new Map();
  const stores = storeIds.length ? await loadStoreSummaries(storeIds, baseUrl) : new Map();
  for (const post of posts) {
    if (post.communityId) post.communityName = communities.get(post.communityId)?.name ?? null;
    if (post.sharedCommunityId) post.sharedCommunity = communities.get(post.sharedCommunityId) ?? null;
    if (post.sharedProductId) post.sharedProduct = products.get(post.sharedProductId) ?? null;
    if (post.sharedStoreId) post.sharedStore = stores.get(post.sharedStoreId) ?? null;
  }
}

async function loadMedia(postIds: string[], db: DbOrTx): Promise<Map<string, MediaRecord[]>> {
  const out = new Map<string, MediaRecord[]>();
  if (!postIds.length) return out;
  const { rows } = await db.execute<{ id: string; post_id: string; file: string; media_type: string; position: number; alt_text: string | null }>(sql`
    SELECT id, post_id, file, media_type, position, alt_text FROM post_media WHERE post_id = ANY(${sql.param(postIds)}::uuid[]) ORDER BY post_id, position`);
  for (const r of rows) {
    const list = out.get(r.post_id) ?? [];
    list.push({ id: r.id, file: r.file, mediaType: r.media_type, position: r.position, altText: r.alt_text });
    out.set(r.post_id, list);
  }
  return out;
}

async function loadAudio(postIds: string[], db: DbOrTx): Promise<Map<string, AudioRecord>> {
  const out = new Map<string, AudioRecord>();
  if (!postIds.length) return out;
  const { rows } = await db.execute<{ id: string; post_id: string; file: string; duration_seconds: number; transcription: string | null; waveform_data: unknown }>(sql`
    SELECT id, post_id, file, duration_seconds, transcription, waveform_data FROM post_audio WHERE post_id = ANY(${sql.param(postIds)}::uuid[])`);
  for (const r of rows) out.set(r.post_id, { id: r.id, file: r.file, durationSeconds: r.duration_seconds, transcription: r.transcription, waveformData: r.waveform_data });
  return out;
}

/** The polls of these posts with their options (in order) and the viewer's chosen options: two queries. */
export async function loadPollsOfPosts(postIds: string[], viewerId: string | null, db: DbOrTx = currentDb()): Promise<Map<string, PollRecord>> {
  const out = new Map<string, PollRecord>();
  if (!postIds.length) return out;
  const { rows } = await db.execute<{
    id: string;
    post_id: string;
    question: string;
    allows_multiple_choices: boolean;
    expires_at: Date;
    options: Array<{ id: string; option_text: string; position: number; votes_count: number }>;
    viewer_option_ids: string[] | null;
  }>(sql`
    SELECT pl.id, pl.post_id, pl.question, pl.allows_multiple_choices, pl.expires_at,
           (SELECT json_agg(json_build_object('id', o.id, 'option_text', o.option_text, 'position', o.position, 'votes_count', o.votes_count) ORDER BY o.position)
              FROM poll_options o WHERE o.poll_id = pl.id) AS options,
           ${viewerId ? sql`(SELECT array_agg(v.option_id) FROM poll_votes v WHERE v.poll_id = pl.id AND v.user_id = ${viewerId}::uuid)` : sql`NULL::uuid[]`} AS viewer_option_ids
    FROM polls pl WHERE pl.post_id = ANY(${sql.param(postIds)}::uuid[])`);
  for (const r of rows) {
    out.set(r.post_id, {
      id: r.id,
      question: r.question,
      allowsMultipleChoices: r.allows_multiple_choices,
      expiresAt: asDate(r.expires_at),
      options: (r.options ?? []).map((o) => ({ id: o.id, optionText: o.option_text, position: o.position, votesCount: o.votes_count })),
      viewerOptionIds: r.viewer_option_ids ?? [],
    });
  }
  return out;
}

/** The author's stored location (posts take it; the client sends none). */
export async function findAuthorLocation(userId: string, db: DbOrTx = currentDb()): Promise<{ id: string; name: string } | null> {
  const { rows } = await db.execute<{ id: string; name: string }>(sql`
    SELECT l.id, l.name FROM users u JOIN locations l ON l.id = u.location_id WHERE u.id = ${userId}::uuid`);
  return rows[0] ?? null;
}

/**
 * Current counters of a post (the coalesced `post:stats` reads them when it fires), an event's answers (null for
 * other posts), and whether moderation hid it.
 */
export async function findPostStats(id: string, db: DbOrTx = currentDb()) {
  const { rows } = await db.execute<{
    user_id: string;
    likes_count: number;
    comments_count: number;
    views_count: number;
    going_count: number | null;
    interested_count: number | null;
    location_id: string | null;
    community_id: string | null;
    hidden: boolean;
  }>(
    sql`SELECT p.user_id, p.likes_count, p.comments_count, p.views_count, e.going_count, e.interested_count, p.location_id, p.community_id,
      p.hidden_at IS NOT NULL AS hidden
    FROM posts p LEFT JOIN post_events e ON e.post_id = p.id WHERE p.id = ${id}::uuid`,
  );
  return rows[0] ?? null;
}
