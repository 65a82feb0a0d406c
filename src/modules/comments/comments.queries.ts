import { sql, type SQL } from 'drizzle-orm';
import { currentDb, type DbOrTx } from '../../platform/db.js';
import type { PostAuthor } from '../posts/posts.queries.js';
import { notHiddenFrom } from '../policy/visibility.js';
import { commentListedFor } from '../policy/post-visibility.js';

export interface CommentRecord {
  id: string;
  postId: string;
  parentId: string | null;
  content: string;
  repliesCount: number;
  likesCount: number;
  bookmarksCount: number;
  viewsCount: number;
  createdAt: Date;
  updatedAt: Date;
  editedAt: Date | null;
  /** Migration 0029: its hashtags, lower case. */
  tags: string[];
  author: PostAuthor;
  hasLiked: boolean;
  hasBookmarked: boolean;
}

type CommentSqlRow = {
  id: string;
  post_id: string;
  parent_id: string | null;
  content: string;
  replies_count: number;
  likes_count: number;
  bookmarks_count: number;
  views_count: number;
  created_at: Date;
  updated_at: Date;
  edited_at: Date | null;
  tags: string[];
  user_id: string;
  username: string;
  display_name: string;
  profile_picture: string | null;
  has_liked: boolean;
  has_bookmarked: boolean;
  total: number;
};

const toRecord = (r: CommentSqlRow): CommentRecord => ({
  id: r.id,
  postId: r.post_id,
  parentId: r.parent_id,
  content: r.content,
  repliesCount: r.replies_count,
  likesCount: r.likes_count,
  bookmarksCount: r.bookmarks_count,
  viewsCount: r.views_count,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  editedAt: r.edited_at ? new Date(r.edited_at) : null,
  tags: r.tags ?? [],
  author: { id: r.user_id, username: r.username, displayName: r.display_name, profilePicture: r.profile_picture },
  hasLiked: r.has_liked,
  hasBookmarked: r.has_bookmarked,
});

/** Comments matching `where`, oldest first (a thread reads as a conversation), one page and the total in one query. */
async function selectComments(where: SQL, viewerId: string | null, page: { limit: number; offset: number }, db: DbOrTx) {
  const { rows } = await db.execute<CommentSqlRow>(sql`
    SELECT c.id, c.post_id, c.parent_id, c.content, c.replies_count, c.likes_count, c.bookmarks_count, c.views_count,
           c.created_at, c.updated_at, c.edited_at, c.tags, u.id AS user_id, u.username, u.display_name, u.profile_picture,
           ${viewerId ? sql`EXISTS (SELECT 1 FROM comment_likes l WHERE l.comment_id = c.id AND l.user_id = ${viewerId}::uuid)` : sql`false`} AS has_liked,
           ${viewerId ? sql`EXISTS (SELECT 1 FROM comment_bookmarks b WHERE b.comment_id = c.id AND b.user_id = ${viewerId}::uuid)` : sql`false`} AS has_bookmarked,
           count(*) OVER ()::int AS total
    FROM comments c JOIN users u ON u.id = c.user_id
    WHERE ${where}
    ORDER BY c.created_at, c.id
    LIMIT ${page.limit} OFFSET ${page.offset}`);
  return { rows: rows.map(toRecord), total: rows[0]?.total ?? null };
}

/** What `viewerId` sees of a comment list: no blocked or muted author (safety), nothing moderation took away. */
const listedFor = (viewerId: string | null) => sql`${notHiddenFrom(viewerId, sql`c.user_id`)} AND ${commentListedFor(viewerId)}`;

/** The conditions of a post's top-level comments, and of a comment's replies, as `viewerId` sees them (pages and counts alike). */
export const topLevelOf = (postId: string, viewerId: string | null) => sql`c.post_id = ${postId}::uuid AND c.parent_id IS NULL AND ${listedFor(viewerId)}`;
export const repliesOf = (parentId: string, viewerId: string | null) => sql`c.parent_id = ${parentId}::uuid AND ${listedFor(viewerId)}`;

export async function listTopLevelComments(postId: string, viewerId: string | null, page: { limit: number; offset: number }, db: DbOrTx = currentDb()) {
  return selectComments(topLevelOf(postId, viewerId), viewerId, page, db);
}

export async function listReplies(parentId: string, viewerId: string | null, page: { limit: number; offset: number }, db: DbOrTx = currentDb()) {
  return selectComments(repliesOf(parentId, viewerId), viewerId, page, db);
}

/** How many comments match `where` (a page past the end has no row to carry the total). */
export async function countComments(where: SQL, db: DbOrTx = currentDb()): Promise<number> {
  const { rows } = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM comments c WHERE ${where}`);
  return rows[0].n;
}

export async function loadComment(id: string, viewerId: string | null, db: DbOrTx = currentDb()): Promise<CommentRecord | null> {
  const { rows } = await selectComments(sql`c.id = ${id}::uuid`, viewerId, { limit: 1, offset: 0 }, db);
  return rows[0] ?? null;
}

/** Several comments by id in one statement, in the order of `ids` (a comment gone meanwhile is left out). */
export async function loadComments(ids: readonly string[], viewerId: string | null, db: DbOrTx = currentDb()): Promise<CommentRecord[]> {
  if (!ids.length) return [];
  const { rows } = await selectComments(sql`c.id = ANY(${sql.param([...ids])}::uuid[])`, viewerId, { limit: ids.length, offset: 0 }, db);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((c): c is CommentRecord => c !== undefined);
}
