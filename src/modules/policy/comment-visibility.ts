import { sql, type SQL } from 'drizzle-orm';
import { notFound } from '../../core/errors.js';
import { findCommentHead, findPostHead } from './heads.js';
import { commentListedFor, postListedFor, requireViewableComment, type Viewer } from './post-visibility.js';
import { hiddenAuthorIdsOf, notAmongHiddenAuthors, notBlockedWith } from './visibility.js';

/**
 * A comment known by its id, for whoever may read it (404 otherwise, as for an unknown one): its post by the one post
 * rule, then the comment's own moderation (itself or a comment above it) and a block with its author. Its replies,
 * its likes and bookmarks, and a report of it all ask here.
 */
export async function requireReadableComment(viewer: Viewer, commentId: string) {
  const comment = await findCommentHead(commentId);
  const post = comment && (await findPostHead(comment.postId));
  if (!comment || !post) throw notFound();
  await requireViewableComment(viewer, comment, { communityId: post.communityId, authorId: post.userId, hidden: post.hidden });
  return { comment, post };
}

/**
 * The same rule as one SQL condition on a comments row (`alias`), for a list that tests many candidate comments of
 * any post for one viewer (search's newest matches), plus what every list of comments leaves out (mutes):
 * - its post readable by id: a community's post for signed-in callers only, a hidden post for its author alone, no
 *   block either way with the post's author (a mute of the post's author does not hide the comments under it);
 * - the comment itself not hidden by moderation, nor any comment above it, except for the comment's own author;
 * - its author in no block with the viewer either way, and not muted by the viewer.
 *
 * Each part is a per-row filter (the post read by a scalar subquery on its key, the viewer's blocks and mutes read
 * once per statement as an array, the chain above only for replies), never a join, so a caller walking its
 * candidates in some order keeps that order and tests only as many as it needs; and each is costed as cheap as it
 * is, so that PostgreSQL still chooses between walking the candidates and reading an index by how many there are.
 */
export function commentVisibleInManyTo(viewerId: string | null, alias = 'c'): SQL {
  const a = sql.raw(alias);
  const post = sql`coalesce((SELECT ${viewerId ? sql`TRUE` : sql`vp.community_id IS NULL`} AND ${postListedFor(viewerId, 'vp')} AND ${notBlockedWith(viewerId, sql`vp.user_id`)}
      FROM posts vp WHERE vp.id = ${a}.post_id), FALSE)`;
  const author = viewerId ? notAmongHiddenAuthors(hiddenAuthorIdsOf(viewerId), sql`${a}.user_id`) : sql`TRUE`;
  // hl_comment_under_hidden (migration 0036): the parent or a comment above it hidden; a function for the planner's sake.
  const chain = sql`(${viewerId ? sql`${a}.user_id = ${viewerId}::uuid OR ` : sql``}${a}.parent_id IS NULL OR NOT hl_comment_under_hidden(${a}.parent_id))`;
  return sql`${commentListedFor(viewerId, alias)} AND ${author} AND ${chain} AND ${post}`;
}
