import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AuthedContext, RequestContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { requireOwner } from '../../core/ownership.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { notifyMentions } from '../posts/mentions.js';
import { requireReadableComment } from '../policy/comment-visibility.js';
import { loadComment } from './comments.queries.js';
import { findCommentHead } from '../policy/heads.js';
import { serializeComment, type CommentBody } from './comments.serializer.js';
import '../posts/posts.events.js';
import './comments.events.js';

/**
 * Edits of a comment by its author, and its history (DESIGN.md section 13; docs/modules/comments.md, "Edits"). Only
 * the content changes; the version replaced is kept in `comment_versions`, in the edit's transaction.
 */
export const zCommentVersion = z
  .object({
    content: z.string(),
    edited_at: z.string().nullable().describe('When this version was made by an edit; null for the version first posted'),
  })
  .meta({ id: 'CommentVersion' });

export async function editComment(ctx: AuthedContext, input: { comment_id: string; content: string }): Promise<CommentBody> {
  return transaction(platform.db, async (tx, events) => {
    // The row lock orders concurrent edits: each keeps the version the one before it wrote.
    const { rows } = await tx.execute<{ user_id: string; content: string; edited_at: Date | null; parent_id: string | null }>(sql`
      SELECT user_id, content, edited_at, parent_id FROM comments WHERE id = ${input.comment_id}::uuid FOR UPDATE`);
    const current = rows[0];
    if (!current) throw notFound();
    // Unreadable (its post's rule, its own moderation, a block with its author) is 404; someone else's is 403.
    const { comment: head, post } = await requireReadableComment(ctx.user, input.comment_id);
    requireOwner(ctx.user, current.user_id);
    if (input.content !== current.content) {
      const { rows: earlier } = await tx.execute<{ content: string }>(sql`SELECT content FROM comment_versions WHERE comment_id = ${input.comment_id}::uuid`);
      await tx.execute(sql`
        INSERT INTO comment_versions (comment_id, user_id, content, edited_at)
        VALUES (${input.comment_id}::uuid, ${current.user_id}::uuid, ${current.content}, ${current.edited_at})`);
      await tx.execute(sql`UPDATE comments SET content = ${input.content}, edited_at = now(), updated_at = now() WHERE id = ${input.comment_id}::uuid`);
      // As at creation: under content hidden by moderation it tells nobody; a mention reaches only who may read it, and
      // never the post's or the parent's author, who were told of the comment itself.
      const parentAuthor = current.parent_id ? ((await findCommentHead(current.parent_id, tx))?.authorId ?? null) : null;
      if (!post.hidden && !head.hidden) {
        await notifyMentions(tx, events, {
          text: input.content,
          earlierTexts: [current.content, ...earlier.map((v) => v.content)],
          actorId: ctx.user.id,
          actorUsername: ctx.user.username,
          targetType: 'Comment',
          targetId: input.comment_id,
          alreadyNotified: [ctx.user.id, post.userId, ...(parentAuthor ? [parentAuthor] : [])],
          readableOnlyApartFrom: parentAuthor ? [post.userId, parentAuthor] : [post.userId],
        });
      }
      // A comment hidden by moderation (itself or one above) is pushed to nobody; on a hidden post its room holds only
      // its author's (and staff's) sockets, as for comment.created.
      if (!head.hidden) {
        const pushed = (await loadComment(input.comment_id, null, tx))!;
        events.add('comment.updated', { postId: post.id, authorId: post.userId, comment: serializeComment(pushed, { baseUrl: serverBaseUrl() }) });
      }
    }
    return serializeComment((await loadComment(input.comment_id, ctx.user.id, tx))!, ctx);
  });
}

const HISTORY_PAGE = { size: 20, max: 100 };

/** Earlier versions of a comment, newest first, for whoever may read it (404 otherwise). */
export async function commentHistory(ctx: RequestContext, input: { comment_id: string; page?: number; page_size?: number }) {
  await requireReadableComment(ctx.user, input.comment_id);
  const params = pageParams(input, HISTORY_PAGE);
  const { rows } = await platform.db.execute<{ content: string; edited_at: Date | null; total: number }>(sql`
    SELECT content, edited_at, count(*) OVER ()::int AS total FROM comment_versions
    WHERE comment_id = ${input.comment_id}::uuid ORDER BY replaced_at DESC, id DESC LIMIT ${params.limit} OFFSET ${params.offset}`);
  const count = rows[0]?.total ?? (params.offset ? await countVersions(input.comment_id) : 0);
  return paginated(ctx, `/api/posts/comments/${input.comment_id}/history/`, params, count, rows.map((r) => ({ content: r.content, edited_at: r.edited_at ? new Date(r.edited_at).toISOString() : null })));
}

async function countVersions(commentId: string): Promise<number> {
  const { rows } = await platform.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM comment_versions WHERE comment_id = ${commentId}::uuid`);
  return rows[0].n;
}
