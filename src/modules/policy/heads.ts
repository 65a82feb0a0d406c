import { sql } from 'drizzle-orm';
import { currentDb, type DbOrTx } from '../../platform/db.js';
import type { PostType } from '../../models/index.js';

/**
 * The few columns the visibility rules read of a post or a comment known by its id (who wrote it, where it lives,
 * whether moderation hid it). They live in the policy module so that the rules read them without importing posts
 * or comments; those modules use them too.
 */

/** What a post's access and side effects need, without its attachments. */
export interface PostHead {
  id: string;
  userId: string;
  postType: PostType;
  locationId: string | null;
  communityId: string | null;
  /** Hidden by moderation (post-visibility.ts decides who still sees it). */
  hidden: boolean;
}

export async function findPostHead(id: string, db: DbOrTx = currentDb()): Promise<PostHead | null> {
  const { rows } = await db.execute<{ id: string; user_id: string; post_type: PostType; location_id: string | null; community_id: string | null; hidden: boolean }>(
    sql`SELECT id, user_id, post_type, location_id, community_id, hidden_at IS NOT NULL AS hidden FROM posts WHERE id = ${id}::uuid`,
  );
  const r = rows[0];
  return r ? { id: r.id, userId: r.user_id, postType: r.post_type, locationId: r.location_id, communityId: r.community_id, hidden: r.hidden } : null;
}

export async function findCommentHead(id: string, db: DbOrTx = currentDb()): Promise<{ id: string; postId: string; authorId: string; hidden: boolean } | null> {
  // Hidden: by moderation, itself or any comment it answers (a reply under a hidden comment goes with it). The chain
  // above is walked by hl_comment_under_hidden (migration 0036), the one walk search's comment rule uses too.
  const { rows } = await db.execute<{ id: string; post_id: string; user_id: string; hidden: boolean }>(sql`
    SELECT c.id, c.post_id, c.user_id,
      (c.hidden_at IS NOT NULL OR (c.parent_id IS NOT NULL AND hl_comment_under_hidden(c.parent_id))) AS hidden
    FROM comments c WHERE c.id = ${id}::uuid`);
  const r = rows[0];
  return r ? { id: r.id, postId: r.post_id, authorId: r.user_id, hidden: r.hidden } : null;
}
