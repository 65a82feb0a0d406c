import { PgDialect } from 'drizzle-orm/pg-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';
import { searchBothTransports, searchMarker } from '../helpers/search.js';
import { aPost } from '../builders/posts.js';
import { aCity, aResidentAt } from '../builders/feeds.js';
import type { TestUser } from '../builders/users.js';
import { tagsStatement, TAGS_CONSIDERED } from '../../src/modules/search/search.queries.js';
import { tagStatsRefreshJob } from '../../src/modules/search/tag-stats.job.js';

/**
 * The tags a search finds come from the tag dictionary `tag_stats` (migration 0037; docs/modules/search.md,
 * "Hashtags"): a new tag at once, the counts from search.tag_stats_refresh, never a read of posts. Searches are asked
 * over REST and over the socket, which must answer the same. Each test's tags carry a marker of its own.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

const marker = searchMarker;
const search = (as: TestUser, query: Record<string, unknown>) => searchBothTransports(app, as, query);
/** The tags found for `q` (all kinds at once, as type-ahead asks, and `type=tags` alike), those of this test only. */
async function tagsFound(as: TestUser, q: string, m: string): Promise<Array<{ tag: string; posts_count: number }>> {
  const all = (await search(as, { q })).tags.results.filter((t: any) => t.tag.includes(m));
  const page = (await search(as, { q, type: 'tags' })).results.filter((t: any) => t.tag.includes(m));
  expect(page).toEqual(all);
  return all;
}
const runJob = () => tagStatsRefreshJob.run();
/** Stands for the time the job's rotation takes to reach a tag: it becomes the one counted longest ago. */
const counted_longest_ago = (tag: string) => sql(`UPDATE tag_stats SET refreshed_at = '-infinity' WHERE tag = $1`, [tag]);

describe('search.query: the tags found come from the tag dictionary', () => {
  test('when a post brings a new tag, then it is found at once, exactly and by its start, counted 1; an edit that adds one alike', async () => {
    const u = await aResidentAt(app, aCity());
    const m = marker();
    const post = await aPost(app, u, { content: `Lights on the square #Lantern${m} tonight` });
    expect(post.tags).toEqual([`lantern${m}`]);
    const expected = [{ tag: `lantern${m}`, posts_count: 1 }];
    expect(await tagsFound(u, `#lantern${m}`, m)).toEqual(expected);
    expect(await tagsFound(u, `lantern${m}`, m)).toEqual(expected);
    expect(await tagsFound(u, `lantern${m.slice(0, -3)}`, m)).toEqual(expected);
    expect(await tagsFound(u, `#lantern${m.slice(0, -3)}`, m)).toEqual(expected);
    expect(await tagsFound(u, `lantern${m}x`, m)).toEqual([]);

    expect((await app.rest('PATCH', `/api/feed/posts/${post.id}/`, { token: u.token, body: { content: `now #Torch${m}` } })).status).toBe(200);
    expect(await tagsFound(u, `torch${m.slice(0, -2)}`, m)).toEqual([{ tag: `torch${m}`, posts_count: 1 }]);
  });

  test('when more posts carry a tag and one is hidden, then the job counts them: until it runs the count stays where it was', async () => {
    const [ann, ben] = [await aResidentAt(app, aCity()), await aResidentAt(app, aCity())];
    const m = marker();
    const first = await aPost(app, ann, { content: `#market${m} on Sunday` });
    await aPost(app, ben, { content: `#Market${m} #stall${m}` });
    await aPost(app, ben, { content: `#market${m} again` });
    // Counts are not kept per post (a popular tag's row would be every writer's hot row): the job's.
    expect(await tagsFound(ann, `#market${m}`, m)).toEqual([{ tag: `market${m}`, posts_count: 1 }]);
    await sql(`UPDATE posts SET hidden_at = now() WHERE id = $1`, [first.id]);
    await aPost(app, ann, { content: `#market${m} #stall${m} last one` });

    const result = await runJob();
    expect(result).toEqual({ recent: expect.any(Number), changed: expect.any(Number), stale: expect.any(Number) });
    const both = [
      { tag: `market${m}`, posts_count: 3 },
      { tag: `stall${m}`, posts_count: 2 },
    ];
    expect(await tagsFound(ann, `market${m} stall${m.slice(0, 4)}`, m)).toEqual(both);
    expect(await tagsFound(ann, `#market${m} #stall${m}`, m)).toEqual(both);
    // Ranked by the count, then the tag.
    expect(await tagsFound(ann, `stall${m} market${m.slice(0, 4)}`, m)).toEqual(both);
    // Idempotent: a second run counts the same.
    await runJob();
    expect(await tagsFound(ann, `#market${m} #stall${m}`, m)).toEqual(both);
  });

  test('when every post of a tag is hidden, deleted or loses its place, then after the job the tag is no longer found', async () => {
    const u = await aResidentAt(app, aCity());
    const m = marker();
    const hidden = await aPost(app, u, { content: `#veiled${m}` });
    const deleted = await aPost(app, u, { content: `#doomed${m}` });
    const moved = await aPost(app, u, { content: `#adrift${m}` });
    await aPost(app, u, { content: `#kept${m}` });
    await runJob();
    const all = `#veiled${m} #doomed${m} #adrift${m} #kept${m}`;
    expect((await tagsFound(u, all, m)).map((t) => t.tag).sort()).toEqual([`adrift${m}`, `doomed${m}`, `kept${m}`, `veiled${m}`]);

    await sql(`UPDATE posts SET hidden_at = now() WHERE id = $1`, [hidden.id]);
    expect((await app.rest('DELETE', `/api/feed/posts/${deleted.id}/`, { token: u.token })).status).toBe(204);
    await sql(`UPDATE posts SET location_id = NULL WHERE id = $1`, [moved.id]);
    for (const tag of [`veiled${m}`, `doomed${m}`, `adrift${m}`]) await counted_longest_ago(tag);
    await runJob();
    expect(await tagsFound(u, all, m)).toEqual([{ tag: `kept${m}`, posts_count: 1 }]);
    expect(await tagsFound(u, `doomed${m.slice(0, -2)}`, m)).toEqual([]);
    expect((await sql(`SELECT posts_count FROM tag_stats WHERE tag = $1`, [`doomed${m}`]))[0]).toEqual({ posts_count: 0 });

    // Shown again and used again: counted again by the next run.
    await sql(`UPDATE posts SET hidden_at = NULL WHERE id = $1`, [hidden.id]);
    await counted_longest_ago(`veiled${m}`);
    await aPost(app, u, { content: `#doomed${m} is back` });
    await runJob();
    expect(await tagsFound(u, `#veiled${m} #doomed${m}`, m)).toEqual([
      { tag: `doomed${m}`, posts_count: 1 },
      { tag: `veiled${m}`, posts_count: 1 },
    ]);
  });

  test('when a post is hidden, shown again, deleted or given a place, then its tags are counted again by the next run of the job, not when the rotation reaches them', async () => {
    const u = await aResidentAt(app, aCity());
    const m = marker();
    const spam = await aPost(app, u, { content: `cheap watches #bargain${m}` });
    const gone = await aPost(app, u, { content: `#leaving${m}` });
    const placeless = await aPost(app, u, { content: `#wandering${m}` });
    await sql(`UPDATE posts SET location_id = NULL WHERE id = $1`, [placeless.id]);
    await runJob();
    expect((await tagsFound(u, `#bargain${m} #leaving${m}`, m)).map((t) => t.tag)).toEqual([`bargain${m}`, `leaving${m}`]);
    // Counted just now: the rotation would not come back to them for a long while (up to a day in a large dictionary).
    await sql(`UPDATE tag_stats SET refreshed_at = now() + interval '1 day' WHERE tag LIKE $1`, [`%${m}`]);

    await sql(`UPDATE posts SET hidden_at = now() WHERE id = $1`, [spam.id]);
    expect((await app.rest('DELETE', `/api/feed/posts/${gone.id}/`, { token: u.token })).status).toBe(204);
    await sql(`UPDATE posts SET location_id = $1 WHERE id = $2`, [u.locationId, placeless.id]);
    expect(await tagsFound(u, `#bargain${m} #leaving${m}`, m)).toHaveLength(2); // until the job runs
    // The hidden and the deleted post's tags come off the queue (the post given a place is new: counted as such).
    const result = (await runJob()) as { changed: number };
    expect(result.changed).toBeGreaterThanOrEqual(2);
    expect(await tagsFound(u, `#bargain${m} #leaving${m} #wandering${m}`, m)).toEqual([{ tag: `wandering${m}`, posts_count: 1 }]);

    await sql(`UPDATE posts SET hidden_at = NULL WHERE id = $1`, [spam.id]);
    await runJob();
    expect(await tagsFound(u, `#bargain${m}`, m)).toEqual([{ tag: `bargain${m}`, posts_count: 1 }]);
    // Taken off the queue: nothing of this test's tags is left in it.
    expect(await sql(`SELECT tag FROM tag_recounts WHERE tag LIKE $1`, [`%${m}`])).toEqual([]);
  });

  test('when the tags found are looked up, then the statement reads the dictionary only, never posts, and considers at most 1,000 tags', async () => {
    const dialect = new PgDialect();
    const relationsRead = async (exact: string[], prefix: string | null) => {
      const { sql: text, params } = dialect.sqlToQuery(tagsStatement(exact, prefix, { limit: 5, offset: 0 }));
      const [row] = await sql(`EXPLAIN (FORMAT JSON) ${text}`, params);
      const names = new Set<string>();
      const walk = (node: any) => {
        if (node['Relation Name']) names.add(node['Relation Name']);
        for (const child of node.Plans ?? []) walk(child);
      };
      walk(row['QUERY PLAN'][0].Plan);
      return [...names];
    };
    expect(await relationsRead(['garden'], 'garden')).toEqual(['tag_stats']);
    expect(await relationsRead(['garden', 'party'], null)).toEqual(['tag_stats']);
    expect(await relationsRead([], 'g')).toEqual(['tag_stats']);
    expect(await relationsRead([], null)).toEqual([]);

    // 1,005 tags starting alike: the count stops at 1,000, the first in code point order, and the exact one (the last
    // in that order) is always among them.
    const m = marker();
    await sql(`INSERT INTO tag_stats (tag, posts_count, refreshed_at) SELECT $1 || g, 1, now() FROM generate_series(1, 1005) g`, [`many${m}`]);
    const { sql: text, params } = dialect.sqlToQuery(tagsStatement([`many${m}999`], `many${m}`, { limit: 2000, offset: 0 }));
    const rows = await sql(text, params);
    expect(rows).toHaveLength(TAGS_CONSIDERED);
    expect(rows[0].total).toBe(TAGS_CONSIDERED);
    const tags = rows.map((r: any) => r.tag);
    expect(tags).toContain(`many${m}999`);
    expect(tags).not.toContain(`many${m}998`);
  });
});
