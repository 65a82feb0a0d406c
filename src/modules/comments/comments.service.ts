import { sql } from 'drizzle-orm';
import type { AuthedContext, RequestContext } from '../../core/context.js';
import { AppError, fieldError, notFound } from '../../core/errors.js';
import { requireOwner } from '../../core/ownership.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { notifyMany } from '../notifications/notifications.service.js';
import { notifyMentions } from '../posts/mentions.js';
import { toggleReaction } from '../posts/reactions.js';
import { mayViewPost, requireViewableComment, requireViewablePostById } from '../policy/post-visibility.js';
import { postScope, recordDeletions } from '../deletions/deletions.service.js';
import { requireReadableComment } from '../policy/comment-visibility.js';
import { countComments, listReplies, listTopLevelComments, loadComment, repliesOf, topLevelOf } from './comments.queries.js';
import { findCommentHead } from '../policy/heads.js';
import { serializeComment, type CommentBody } from './comments.serializer.js';
import '../posts/posts.events.js';
import './comments.events.js';

const COMMENT_PAGE = { size: 20, max: 100 };

export interface NewComment {
  post: string;
  content: string;
  parent?: string | null;
}

/**
 * A comment or a reply (`parent`, at any depth, of the same post). The post's `comments_count` (every comment,
 * replies included) and the parent's `replies_count` (its direct replies) move by single-statement increments
 * in the comment's transaction. The post row is locked first, by its increment, as a comment delete locks it
 * first: a reply to a comment being deleted waits, then finds the parent gone (400), never a foreign-key error.
 *
 * Notified (never the commenter): the post's author (`post_reply`), the parent's author (`comment_reply`),
 * and the users mentioned who may read it, each at most once for this comment; nobody, and no push, for a comment
 * under content hidden by moderation.
 */
export async function createComment(ctx: AuthedContext, input: NewComment): Promise<CommentBody> {
  return transaction(platform.db, async (tx, events) => {
    const { rows: postRows } = await tx.execute<{ user_id: string; community_id: string | null; hidden: boolean }>(sql`
      UPDATE posts SET comments_count = comments_count + 1 WHERE id = ${input.post}::uuid
      RETURNING user_id, community_id, hidden_at IS NOT NULL AS hidden`);
    // Under the post's row lock, by the one post rule: a post that does not exist for the commenter (its audience,
    // moderation, a block with its author) is answered as a missing one.
    const row = postRows[0];
    const post = row && { communityId: row.community_id, authorId: row.user_id, hidden: row.hidden };
    if (!post || !(await mayViewPost(ctx.user, post))) throw fieldError('post', 'Post not found.');
    const postAuthor = post.authorId;
    let parentAuthor: string | null = null;
    let parentHidden = false;
    if (input.parent) {
      const { rows } = await tx.execute<{ post_id: string }>(sql`
        UPDATE comments SET replies_count = replies_count + 1 WHERE id = ${input.parent}::uuid RETURNING post_id`);
      if (!rows.length) throw fieldError('parent', 'Comment not found.');
      if (rows[0].post_id !== input.post) throw fieldError('parent', 'The parent comment belongs to another post.');
      // The rule of reading a comment: hidden by moderation (itself or a comment above it), or written by someone in
      // a block with the replier, it does not exist for them.
      const parent = (await findCommentHead(input.parent, tx))!;
      await requireViewableComment(ctx.user, parent, post).catch((err: unknown) => {
        throw err instanceof AppError && err.status === 404 ? fieldError('parent', 'Comment not found.') : err;
      });
      parentAuthor = parent.authorId;
      parentHidden = parent.hidden;
    }
    const { rows: inserted } = await tx.execute<{ id: string }>(sql`
      INSERT INTO comments (post_id, user_id, parent_id, content)
      VALUES (${input.post}::uuid, ${ctx.user.id}::uuid, ${input.parent ?? null}::uuid, ${input.content}) RETURNING id`);
    const id = inserted[0].id;

    const comment = (await loadComment(id, ctx.user.id, tx))!;
    events.add('post.counters_changed', { postId: input.post });
    const pushed = () => events.add('comment.created', { postId: input.post, authorId: postAuthor, comment: serializeComment(comment, { baseUrl: serverBaseUrl() }) });
    // Under content hidden by moderation (the post, or a comment above), the new comment is hidden with it: it reaches
    // nobody but its author and staff (DESIGN.md section 9, "Every path"), so it notifies nobody, mentions included.
    // A hidden post's room holds only its author's sockets (and staff's) since the hiding, so the push may go there;
    // a hidden comment's post is still watched by everyone, so a reply under it is not pushed at all.
    if (post.hidden || parentHidden) {
      if (!parentHidden) pushed();
      return serializeComment(comment, ctx);
    }

    const notified = [ctx.user.id];
    if (parentAuthor && parentAuthor !== ctx.user.id) {
      await notifyMany(tx, events, [parentAuthor], { actorId: ctx.user.id, type: 'comment_reply', targetType: 'Comment', targetId: id, message: `${ctx.user.username} replied to your comment.` });
      notified.push(parentAuthor);
    }
    if (!notified.includes(postAuthor)) {
      await notifyMany(tx, events, [postAuthor], { actorId: ctx.user.id, type: 'post_reply', targetType: 'Post', targetId: input.post, message: `${ctx.user.username} commented on your post.` });
      notified.push(postAuthor);
    }
    await notifyMentions(tx, events, {
      text: input.content,
      actorId: ctx.user.id,
      actorUsername: ctx.user.username,
      targetType: 'Comment',
      targetId: id,
      alreadyNotified: notified,
      // Someone in a block with the post's author or the parent's cannot read this comment: not told of it either.
      readableOnlyApartFrom: parentAuthor ? [postAuthor, parentAuthor] : [postAuthor],
    });
    pushed();
    return serializeComment(comment, ctx);
  });
}

/**
 * Only the author deletes a comment (403 otherwise); its replies, at every depth, go with it. The post's
 * `comments_count` drops by the size of the removed thread, counted under the post's row lock (which every
 * comment insert takes first), and the parent's `replies_count` by one. Every removed comment gets a tombstone
 * (realtime.sync's `deleted`), scoped as its post is.
 */
export async function deleteComment(ctx: AuthedContext, commentId: string): Promise<void> {
  await transaction(platform.db, async (tx, events) => {
    const { rows } = await tx.execute<{ post_id: string; user_id: string; parent_id: string | null }>(sql`
      SELECT post_id, user_id, parent_id FROM comments WHERE id = ${commentId}::uuid`);
    const comment = rows[0];
    if (!comment) throw notFound();
    requireOwner(ctx.user, comment.user_id);
    const { rows: posts } = await tx.execute<{ location_id: string | null; community_id: string | null }>(sql`
      SELECT location_id, community_id FROM posts WHERE id = ${comment.post_id}::uuid FOR UPDATE`);
    const { rows: removed } = await tx.execute<{ id: string; user_id: string | null }>(sql`
      WITH RECURSIVE thread AS (
        SELECT id FROM comments WHERE id = ${commentId}::uuid
        UNION ALL
        SELECT c.id FROM comments c JOIN thread t ON c.parent_id = t.id
      )
      DELETE FROM comments WHERE id IN (SELECT id FROM thread) RETURNING id, user_id`);
    // Already gone (a concurrent delete of it or of an ancestor): nothing more to count.
    if (!removed.length) return;
    const scope = postScope(comment.post_id, { locationId: posts[0].location_id, communityId: posts[0].community_id });
    await recordDeletions(tx, removed.map((c) => ({ type: 'comment', id: c.id, authorId: c.user_id, ...scope })));
    await tx.execute(sql`UPDATE posts SET comments_count = greatest(0, comments_count - ${removed.length}::int) WHERE id = ${comment.post_id}::uuid`);
    if (comment.parent_id) {
      await tx.execute(sql`UPDATE comments SET replies_count = greatest(0, replies_count - 1) WHERE id = ${comment.parent_id}::uuid`);
    }
    events.add('post.counters_changed', { postId: comment.post_id });
  });
}

export async function listPostComments(ctx: RequestContext, input: { post_id: string; page?: number; page_size?: number }) {
  // A post's comments and replies are read by whoever may read the post (404 for an unknown post).
  await requireViewablePostById(ctx.user, input.post_id);
  const params = pageParams(input, COMMENT_PAGE);
  const { rows, total } = await listTopLevelComments(input.post_id, ctx.user?.id ?? null, params);
  const count = total ?? (await countComments(topLevelOf(input.post_id, ctx.user?.id ?? null)));
  return paginated(ctx, `/api/posts/posts/${input.post_id}/comments/`, params, count, rows.map((c) => serializeComment(c, ctx)));
}

export async function listCommentReplies(ctx: RequestContext, input: { parent_id: string; page?: number; page_size?: number }) {
  await requireReadableComment(ctx.user, input.parent_id);
  const params = pageParams(input, COMMENT_PAGE);
  const { rows, total } = await listReplies(input.parent_id, ctx.user?.id ?? null, params);
  const count = total ?? (await countComments(repliesOf(input.parent_id, ctx.user?.id ?? null)));
  return paginated(ctx, '/api/posts/comments/replies/', params, count, rows.map((c) => serializeComment(c, ctx)), { parent_id: input.parent_id });
}

export async function toggleCommentLike(ctx: AuthedContext, commentId: string) {
  // Whoever can read a comment may like or bookmark it (404 otherwise, as for a read).
  await requireReadableComment(ctx.user, commentId);
  const { active, count } = await transaction(platform.db, (tx) =>
    toggleReaction(tx, { table: 'comment_likes', targetColumn: 'comment_id', targetTable: 'comments', counter: 'likes_count' }, commentId, ctx.user.id),
  );
  return { message: active ? 'Comment liked.' : 'Comment unliked.', liked: active, likes_count: count };
}

export async function toggleCommentBookmark(ctx: AuthedContext, commentId: string) {
  // Whoever can read a comment may like or bookmark it (404 otherwise, as for a read).
  await requireReadableComment(ctx.user, commentId);
  const { active, count } = await transaction(platform.db, (tx) =>
    toggleReaction(tx, { table: 'comment_bookmarks', targetColumn: 'comment_id', targetTable: 'comments', counter: 'bookmarks_count' }, commentId, ctx.user.id),
  );
  return { message: active ? 'Comment bookmarked.' : 'Bookmark removed.', bookmarked: active, bookmarks_count: count };
}
