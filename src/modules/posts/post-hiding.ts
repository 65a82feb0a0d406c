import { sql } from 'drizzle-orm';
import type { PendingEvents } from '../../core/events.js';
import type { Tx } from '../../platform/db.js';
import { postScope, recordDeletions } from '../deletions/deletions.service.js';
import { cancelCommunityPostFanout } from './community-fanout.service.js';
import './posts.events.js';

/**
 * Moderation's hide and restore of a post (src/modules/safety decides when). A hidden post keeps its row, so its
 * author still has it and a dismissed report can bring it back; everyone else loses it as if it were deleted: the
 * post rule answers 404 (post-visibility.ts), lists and feeds leave it out, its rooms hear `post:deleted` (the
 * author's devices excepted), and its tombstone lists it in realtime.sync's `deleted`.
 */

/** Hides the post in the caller's transaction; false when it is gone or already hidden (nothing happens then). */
export async function hidePost(tx: Tx, events: PendingEvents, postId: string): Promise<boolean> {
  const { rows } = await tx.execute<{ user_id: string; location_id: string | null; community_id: string | null }>(sql`
    UPDATE posts SET hidden_at = now() WHERE id = ${postId}::uuid AND hidden_at IS NULL RETURNING user_id, location_id, community_id`);
  const post = rows[0];
  if (!post) return false;
  await cancelCommunityPostFanout(tx, postId);
  await recordDeletions(tx, [{ type: 'post', id: postId, authorId: post.user_id, ...postScope(postId, { locationId: post.location_id, communityId: post.community_id }) }]);
  events.add('post.deleted', { postId, locationId: post.location_id, communityId: post.community_id, keptFor: post.user_id });
  return true;
}

/**
 * Brings a hidden post back. Its `updated_at` moves, so realtime.sync lists it again in `posts` (its tombstone is
 * no longer listed once it is visible again: sync-deletions.ts); no live push announces it.
 */
export async function restorePost(tx: Tx, postId: string): Promise<boolean> {
  const { rows } = await tx.execute(sql`UPDATE posts SET hidden_at = NULL, updated_at = now() WHERE id = ${postId}::uuid AND hidden_at IS NOT NULL RETURNING id`);
  return rows.length > 0;
}
