import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
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
 *   (b) the tags whose posts changed since (hidden or shown, deleted, moved, edited): the triggers of migration 0038
 *       queue them in `tag_recounts`, at most CHANGED_TAGS_PER_RUN a run, so a spam tag moderation hid is no longer
 *       suggested after the next run;
 *   (c) the STALE_TAGS_PER_RUN tags counted longest ago, the backstop for whatever (b) missed (a run that stopped
 *       between taking its queue and writing its counts): every tag is counted again at least every (tags in the
 *       dictionary / STALE_TAGS_PER_RUN) runs (a day at 144,000 tags). Tags at 0 stay (not found, posts_count > 0):
 *       deleting them would race a post entering it.
 * Counting one tag reads the posts carrying it through the tags' GIN index (`tags @> ARRAY[tag]`), outside any
 * write; the counts are then written TAGS_PER_WRITE at a time, so no row of the dictionary stays locked for long.
 */
export const RECENT_TAGS_PER_RUN = 1000;
export const CHANGED_TAGS_PER_RUN = 1000;
export const STALE_TAGS_PER_RUN = 500;
/**
 * How far before the last run's high-water mark (a) looks again: a post is stamped `created_at` when its transaction
 * starts and becomes visible when it commits, so one committed just after a run may carry a time before its mark.
 */
export const LATE_COMMIT_MARGIN = '1 minute';
/** (a) never looks further back than this (a job that did not run for a while): older posts' tags wait for (b). */
export const RECENT_WINDOW_MAX = '1 hour';

/**
 * Tags counted, then written, per statement: a write holds its rows' locks (and makes a post bringing one of those
 * tags wait in its ON CONFLICT) for a few milliseconds only, never while counting.
 */
export const TAGS_PER_WRITE = 100;

export async function refreshTagStats(): Promise<{ recent: number; changed: number; stale: number }> {
  const db = platform.db;
  const { rows: state } = await db.execute<{ since: string; started: string }>(sql`
    SELECT greatest(counted_until - ${LATE_COMMIT_MARGIN}::interval, now() - ${RECENT_WINDOW_MAX}::interval)::text AS since,
           now()::text AS started
      FROM tag_stats_state`);
  const started = state[0]?.started ?? null;
  // (a) The most used first; past the limit, the others wait for (c).
  const { rows: recent } = state.length
    ? await db.execute<{ tag: string }>(sql`
        SELECT t.tag FROM posts p CROSS JOIN LATERAL unnest(p.tags) AS t(tag)
         WHERE p.created_at >= ${state[0].since}::timestamptz AND ${tagUsesIndexed}
         GROUP BY t.tag ORDER BY count(*) DESC, t.tag LIMIT ${RECENT_TAGS_PER_RUN}`)
    : { rows: [] };
  const recentTags = recent.map((r) => r.tag);
  // (b) Taken off the queue before they are counted: a change committed before this statement is seen by the count
  // below, and one committed after it leaves its own row for the next run. A tag not yet in the dictionary (a post
  // shown again, or given a place, whose tag no counting post had) enters it here.
  const { rows: changed } = await db.execute<{ tag: string }>(sql`
    WITH chosen AS (SELECT DISTINCT tag FROM tag_recounts WHERE NOT (tag = ANY(${sql.param(recentTags)}::text[])) LIMIT ${CHANGED_TAGS_PER_RUN}),
         taken AS (DELETE FROM tag_recounts r WHERE r.tag IN (SELECT tag FROM chosen) OR r.tag = ANY(${sql.param(recentTags)}::text[]))
    SELECT tag FROM chosen`);
  const changedTags = changed.map((r) => r.tag);
  // (c) The least recently counted, leaving those (a) and (b) count.
  const { rows: stale } = await db.execute<{ tag: string }>(sql`
    SELECT tag FROM tag_stats WHERE NOT (tag = ANY(${sql.param([...recentTags, ...changedTags])}::text[]))
     ORDER BY refreshed_at ASC NULLS FIRST LIMIT ${STALE_TAGS_PER_RUN}`);
  const tags = [...recentTags, ...changedTags, ...stale.map((r) => r.tag)];
  for (let i = 0; i < tags.length; i += TAGS_PER_WRITE) await countAndWrite(tags.slice(i, i + TAGS_PER_WRITE));
  if (started) await db.execute(sql`UPDATE tag_stats_state SET counted_until = greatest(counted_until, ${started}::timestamptz)`);
  else await db.execute(sql`INSERT INTO tag_stats_state (counted_until) VALUES (now()) ON CONFLICT DO NOTHING`);
  return { recent: recentTags.length, changed: changedTags.length, stale: stale.length };
}

/**
 * Count some tags (the posts carrying each, through the tags' GIN index), then write the counts in one short
 * statement, in tag order: two runs at once (nodes without Redis) wait for each other there, never deadlock, and
 * write counts as good as each other's.
 */
async function countAndWrite(tags: string[]): Promise<void> {
  const { rows } = await platform.db.execute<{ tag: string; n: number }>(sql`
    SELECT t.tag, (SELECT count(*) FROM posts p WHERE p.tags @> ARRAY[t.tag] AND ${tagUsesIndexed})::int AS n
      FROM unnest(${sql.param(tags)}::text[]) AS t(tag)`);
  await platform.db.execute(sql`
    INSERT INTO tag_stats AS s (tag, posts_count, refreshed_at)
    SELECT c.tag, c.n, now() FROM unnest(${sql.param(rows.map((r) => r.tag))}::text[], ${sql.param(rows.map((r) => Number(r.n)))}::int[]) AS c(tag, n)
     ORDER BY c.tag COLLATE "C"
    ON CONFLICT (tag) DO UPDATE SET posts_count = EXCLUDED.posts_count, refreshed_at = EXCLUDED.refreshed_at`);
}
