import { sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db.js';
import { postScope, recordDeletions } from '../deletions/deletions.service.js';

/**
 * Moderation's hide and restore of a comment (src/modules/safety decides when). A hidden comment keeps its row:
 * its author still sees it, comment lists leave it out for everyone else (post-visibility.ts, commentListedFor),
 * its replies are no longer reachable through it, and its tombstone (scoped as its post is) lists it in
 * realtime.sync's `deleted`. Counters are left as they are: a restore needs no recount.
 */

/** Hides the comment in the caller's transaction; false when it is gone or already hidden. */
export async function hideComment(tx: Tx, commentId: string): Promise<boolean> {
  const { rows } = await tx.execute<{ post_id: string; user_id: string; location_id: string | null; community_id: string | null }>(sql`
    UPDATE comments c SET hidden_at = now() FROM posts p
     WHERE c.id = ${commentId}::uuid AND c.hidden_at IS NULL AND p.id = c.post_id
    RETURNING c.post_id, c.user_id, p.location_id, p.community_id`);
  const comment = rows[0];
  if (!comment) return false;
  await recordDeletions(tx, [{ type: 'comment', id: commentId, authorId: comment.user_id, ...postScope(comment.post_id, { locationId: comment.location_id, communityId: comment.community_id }) }]);
  return true;
}

/** Brings a hidden comment back. */
export async function restoreComment(tx: Tx, commentId: string): Promise<boolean> {
  const { rows } = await tx.execute(sql`UPDATE comments SET hidden_at = NULL, updated_at = now() WHERE id = ${commentId}::uuid AND hidden_at IS NOT NULL RETURNING id`);
  return rows.length > 0;
}
