import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { tagUsesIndexed } from './search.queries.js';

/**
 * The tag dictionary `tag_stats` (migration 0037): each tag once, with the number of posts that count for it (the
 * tag uses of tagUsesIndexed), so that a search's tags are read from it and never from posts (tagsStatement).
 *
 * A new tag enters at once, counted 1, by the trigger that computes a post's tags. The counts of tags already there
 * are not kept per post (every post with a popular tag would update, and lock, the same row: writers of that tag
 * would queue on it); search.tag_stats_refresh counts them again every 5 minutes, a bounded number of tags a run:
 *   (a) the tags of the posts created since the last run (posts_created_idx), at most RECENT_TAGS_PER_RUN, the
 *       most used of them first: new posts' tags (and a tag at 0 used again) are counted within 5 minutes;
 *   (b) the STALE_TAGS_PER_RUN tags counted longest ago, so that hides, deletions, edits and moves are seen too:
 *       every tag is counted again at least every (tags in the dictionary / STALE_TAGS_PER_RUN) runs (a day at
 *       144,000 tags). Tags at 0 stay (not found, posts_count > 0): deleting them would race a post entering it.
 * Counting one tag reads the posts carrying it through the tags' GIN index (`tags @> ARRAY[tag]`).
 */
export const RECENT_TAGS_PER_RUN = 1000;
export const STALE_TAGS_PER_RUN = 500;
/**
 * How far before the last run's high-water mark (a) looks again: a post is stamped `created_at` when its transaction
 * starts and becomes visible when it commits, so one committed just after a run may carry a time before its mark.
 */
export const LATE_COMMIT_MARGIN = '1 minute';
/** (a) never looks further back than this (a job that did not run for a while): older posts' tags wait for (b). */
export const RECENT_WINDOW_MAX = '1 hour';

/**
 * The posts that count for one tag, through the tags' GIN index. `tag_stats.tag` is COLLATE "C" and `posts.tags` of
 * the default collation: PostgreSQL uses an index only for an expression of the index's collation, hence the COLLATE.
 */
const postsCounting = (tag: ReturnType<typeof sql>) =>
  sql`(SELECT count(*) FROM posts p WHERE p.tags @> ARRAY[${tag} COLLATE "default"]::text[] AND ${tagUsesIndexed})::int`;

export async function refreshTagStats(): Promise<{ recent: number; stale: number }> {
  return transaction(platform.db, async (tx) => {
    // The state row's lock makes two runs at once (nodes without Redis) take turns; `now()` is this transaction's
    // start, so the next run's window begins where this one's snapshot ended (less the margin).
    const { rows: state } = await tx.execute<{ since: string }>(sql`
      SELECT greatest(counted_until - ${LATE_COMMIT_MARGIN}::interval, now() - ${RECENT_WINDOW_MAX}::interval)::text AS since
        FROM tag_stats_state FOR UPDATE`);
    const since = state[0]?.since ?? null;
    // (a) Those used most since first (past the limit, the others wait for (b)); written in tag order, so two runs
    // (or a run and a trigger) never lock the same rows in two orders.
    const { rows: recent } = await tx.execute(sql`
      INSERT INTO tag_stats AS s (tag, posts_count, refreshed_at)
      SELECT r.tag, ${postsCounting(sql`r.tag`)}, now()
        FROM (SELECT t.tag FROM posts p CROSS JOIN LATERAL unnest(p.tags) AS t(tag)
               WHERE p.created_at >= ${since ?? sql`now()`}::timestamptz AND ${tagUsesIndexed}
               GROUP BY t.tag ORDER BY count(*) DESC, t.tag LIMIT ${RECENT_TAGS_PER_RUN}) r
       ORDER BY r.tag
      ON CONFLICT (tag) DO UPDATE SET posts_count = EXCLUDED.posts_count, refreshed_at = EXCLUDED.refreshed_at
      RETURNING s.tag`);
    // (b) The least recently counted (never counted first), leaving those (a) just counted.
    const { rows: stale } = await tx.execute(sql`
      UPDATE tag_stats s SET posts_count = ${postsCounting(sql`s.tag`)}, refreshed_at = now()
        FROM (SELECT tag FROM tag_stats WHERE refreshed_at IS NULL OR refreshed_at < now()
               ORDER BY refreshed_at ASC NULLS FIRST LIMIT ${STALE_TAGS_PER_RUN} FOR UPDATE SKIP LOCKED) o
       WHERE s.tag = o.tag
      RETURNING s.tag`);
    if (state.length) await tx.execute(sql`UPDATE tag_stats_state SET counted_until = now()`);
    else await tx.execute(sql`INSERT INTO tag_stats_state (counted_until) VALUES (now()) ON CONFLICT DO NOTHING`);
    return { recent: recent.length, stale: stale.length };
  });
}
