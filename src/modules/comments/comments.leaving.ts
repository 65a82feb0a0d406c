import { sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db.js';
import type { AccountDeletionStep } from '../../core/leaving.js';
import { postScopeColumns, tombstonesFrom } from '../deletions/deletions.service.js';
import { ACCOUNT_PUSH_LIMIT } from '../posts/posts.leaving.js';
import '../posts/posts.events.js';

/**
 * The posts of other people that hold the account's comments, locked in id order: the lock that a comment insert
 * (createComment) and a comment delete (deleteComment) take first, before any comment row. Held, no reply can be
 * added under the account's threads between the moment they are read and the moment they are deleted: a reply
 * already under way finishes first and is then read (and deleted with a tombstone, counted), a later one waits and
 * finds its parent gone (400). NO KEY UPDATE, as the comment insert's increment takes: likes and views of those
 * posts (KEY SHARE) are not held up. The account's own posts are not locked here: they go whole in the posts step.
 */
async function lockPostsOfComments(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`
    SELECT p.id FROM posts p
     WHERE p.id IN (SELECT c.post_id FROM comments c WHERE c.user_id = ${userId}::uuid) AND p.user_id <> ${userId}::uuid
     ORDER BY p.id FOR NO KEY UPDATE OF p`);
}

/**
 * The account's comments on other people's posts go, as an author's delete removes one: with the replies below
 * them at every depth (a thread cut at the root, as deleteComment cuts it), a tombstone for each, the posts'
 * `comments_count` and the surviving parents' `replies_count` dropping by what went. Then its likes and bookmarks
 * of comments, their counters dropping. Runs after the posts step: comments on its own posts went with those posts.
 *
 * The posts are locked before the user row (lockFirst), as a reply locks its post before it notifies the account,
 * and again at the start of the step for any comment the account's own last request added in between; the thread
 * is read in the next statement, so it includes every reply committed while the deletion waited for those locks.
 */
export const commentsLeaving: AccountDeletionStep = {
  module: 'comments',
  handles: {
    'comments.user_id': 'step',
    // Only the author edits a comment, so its versions go with the author's comments; the DELETE states it.
    'comment_versions.user_id': 'step',
    'comment_likes.user_id': 'step',
    'comment_bookmarks.user_id': 'step',
  },
  lockFirst: ({ tx, userId }) => lockPostsOfComments(tx, userId),
  async run({ tx, events, userId }) {
    await lockPostsOfComments(tx, userId);
    // One statement: the thread is found once and every count is taken from what was really deleted.
    const { rows: touched } = await tx.execute<{ id: string }>(sql`
      WITH RECURSIVE doomed AS (
        SELECT id FROM comments WHERE user_id = ${userId}::uuid
        UNION
        SELECT c.id FROM comments c JOIN doomed d ON c.parent_id = d.id
      ), removed AS (
        DELETE FROM comments c USING doomed d WHERE c.id = d.id RETURNING c.id, c.post_id, c.parent_id, c.user_id
      ), tombstones AS (
        ${tombstonesFrom(sql`SELECT 'comment', r.id, r.user_id, ${postScopeColumns('p')}, r.post_id, NULL::uuid FROM removed r JOIN posts p ON p.id = r.post_id`)}
      ), parents AS (
        UPDATE comments c SET replies_count = greatest(0, c.replies_count - x.n)
        FROM (SELECT parent_id, count(*)::int AS n FROM removed
              WHERE parent_id IS NOT NULL AND parent_id NOT IN (SELECT id FROM doomed) GROUP BY parent_id) x
        WHERE c.id = x.parent_id
      ), counted AS (
        UPDATE posts p SET comments_count = greatest(0, p.comments_count - x.n)
        FROM (SELECT post_id, count(*)::int AS n FROM removed GROUP BY post_id) x
        WHERE p.id = x.post_id RETURNING p.id
      )
      SELECT id FROM counted`);
    for (const { id } of touched.slice(0, ACCOUNT_PUSH_LIMIT)) events.add('post.counters_changed', { postId: id });
    await tx.execute(sql`DELETE FROM comment_versions WHERE user_id = ${userId}::uuid`);

    await tx.execute(sql`
      WITH gone AS (DELETE FROM comment_likes WHERE user_id = ${userId} RETURNING comment_id)
      UPDATE comments c SET likes_count = greatest(0, c.likes_count - 1) FROM gone WHERE c.id = gone.comment_id`);
    await tx.execute(sql`
      WITH gone AS (DELETE FROM comment_bookmarks WHERE user_id = ${userId} RETURNING comment_id)
      UPDATE comments c SET bookmarks_count = greatest(0, c.bookmarks_count - 1) FROM gone WHERE c.id = gone.comment_id`);
  },
};
