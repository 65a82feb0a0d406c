import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { notify } from '../notifications/notifications.service.js';
import { toggleReaction } from './reactions.js';
import { requireViewablePostById } from '../policy/post-visibility.js';
import './posts.events.js';

export interface LikeAnswer {
  message: string;
  liked: boolean;
  likes_count: number;
}

export interface BookmarkAnswer {
  message: string;
  bookmarked: boolean;
  bookmarks_count: number;
}

/**
 * Like toggle. A new like notifies the author (`post_like`, never the author liking their own post); unliking
 * does not notify, and a like taken back and given again does not notify a second time.
 */
export async function togglePostLike(ctx: AuthedContext, postId: string): Promise<LikeAnswer> {
  await requireViewablePostById(ctx.user, postId);
  return transaction(platform.db, async (tx, events) => {
    const { active, count } = await toggleReaction(tx, { table: 'post_likes', targetColumn: 'post_id', targetTable: 'posts', counter: 'likes_count' }, postId, ctx.user.id, async (liked) => {
      if (!liked) return;
      const { rows } = await tx.execute<{ author: string; told: boolean }>(sql`
        SELECT p.user_id AS author, EXISTS (
          SELECT 1 FROM notifications n WHERE n.user_id = p.user_id AND n.actor_id = ${ctx.user.id}::uuid
            AND n.notification_type = 'post_like' AND n.target_id = p.id) AS told
        FROM posts p WHERE p.id = ${postId}::uuid`);
      const post = rows[0];
      if (post && !post.told) {
        await notify(tx, events, { recipientId: post.author, actorId: ctx.user.id, type: 'post_like', targetType: 'Post', targetId: postId, message: `${ctx.user.username} liked your post` });
      }
    });
    events.add('post.counters_changed', { postId });
    return { message: active ? 'Post liked.' : 'Post unliked.', liked: active, likes_count: count };
  });
}

export async function togglePostBookmark(ctx: AuthedContext, postId: string): Promise<BookmarkAnswer> {
  await requireViewablePostById(ctx.user, postId);
  return transaction(platform.db, async (tx) => {
    const { active, count } = await toggleReaction(tx, { table: 'post_bookmarks', targetColumn: 'post_id', targetTable: 'posts', counter: 'bookmarks_count' }, postId, ctx.user.id);
    return { message: active ? 'Post bookmarked.' : 'Bookmark removed.', bookmarked: active, bookmarks_count: count };
  });
}
