import type { AuthUser } from '../../src/core/context.js';
import { loadAuthUsers, type Bench } from '../lib/harness.js';
import { measure } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';

/**
 * Posts on one node: `posts.create` (a text post, with its location lookup, mention scan and post:created
 * event) and `posts.like` toggles, through runOperation as both transports call them. Each is timed one call
 * at a time (latency) and then under 20 concurrent callers (throughput, given in the note as operations per
 * second). The hot-post like run is the worst case: every toggle updates the same row's counter, so they
 * queue on its row lock; the spread run toggles likes on 200 different posts.
 *
 * 200 bench users (benchpost_*) live in one bench location; rate limits are on (the bench's config), so calls
 * rotate through the users to stay inside each user's budget (30 posts and 300 toggles a minute).
 */
const USERS = 200;
const CONCURRENCY = 20;

async function ensureAuthors(bench: Bench): Promise<AuthUser[]> {
  const { rows } = await bench.pool.query<{ id: string }>(
    `INSERT INTO locations (name, country, city) SELECT 'Bench Posts', 'Benchland', 'Bench Posts'
     WHERE NOT EXISTS (SELECT 1 FROM locations WHERE name = 'Bench Posts' AND city = 'Bench Posts') RETURNING id`,
  );
  const location = rows[0]?.id ?? (await bench.pool.query<{ id: string }>(`SELECT id FROM locations WHERE name = 'Bench Posts' AND city = 'Bench Posts' LIMIT 1`)).rows[0].id;
  const names = Array.from({ length: USERS }, (_, i) => `benchpost_${i}`);
  await bench.pool.query(
    `INSERT INTO users (email, username, display_name, password_hash, referral_code, location_id)
     SELECT name || '@bench.invalid', name, name, 'not-a-hash', upper(name), $2::uuid FROM unnest($1::text[]) AS t(name)
     ON CONFLICT DO NOTHING`,
    [names, location],
  );
  await bench.pool.query('UPDATE users SET location_id = $2 WHERE username = ANY($1)', [names, location]);
  // Earlier runs' posts would only slow the location's reads: start from none.
  await bench.pool.query('DELETE FROM posts WHERE user_id IN (SELECT id FROM users WHERE username = ANY($1))', [names]);
  return loadAuthUsers(bench.pool, 'username = ANY($1) ORDER BY username', [names]);
}

const COMMUNITY_MEMBERS = 10_000;

/** The bench community (owned by the first bench user) with 10,000 members, generated in SQL once. */
async function ensureCommunity(bench: Bench, owner: AuthUser): Promise<string> {
  const existing = await bench.pool.query<{ id: string }>(`SELECT id FROM communities WHERE lower(name) = 'bench posts club'`);
  if (existing.rows[0]) return existing.rows[0].id;
  const { rows } = await bench.pool.query<{ id: string }>(
    `INSERT INTO communities (name, description, category_id, owner_id, members_count)
     SELECT 'Bench Posts Club', 'bench', (SELECT id FROM community_categories ORDER BY id LIMIT 1), $1::uuid, $2 RETURNING id`,
    [owner.id, COMMUNITY_MEMBERS],
  );
  const id = rows[0].id;
  await bench.pool.query(
    `WITH u AS (
       INSERT INTO users (email, username, display_name, password_hash, referral_code)
       SELECT 'benchclub_' || g || '@bench.invalid', 'benchclub_' || g, 'benchclub_' || g, 'not-a-hash', 'BENCHCLUB' || g
       FROM generate_series(1, $2 - ${USERS}) g ON CONFLICT DO NOTHING RETURNING id)
     INSERT INTO community_members (community_id, user_id, role)
     SELECT $1::uuid, id, 'member' FROM u
     UNION ALL SELECT $1::uuid, id, CASE WHEN id = $3::uuid THEN 'owner' ELSE 'member' END FROM users WHERE username LIKE 'benchpost\_%'
     ON CONFLICT DO NOTHING`,
    [id, COMMUNITY_MEMBERS, owner.id],
  );
  return id;
}

/** `total` calls by `concurrency` workers: each call's latency, and calls per second over the whole run. */
async function underLoad(total: number, fn: (i: number) => Promise<unknown>): Promise<{ samples: number[]; perSecond: number }> {
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < total; i = next++) {
        const t = performance.now();
        await fn(i);
        samples.push(performance.now() - t);
      }
    }),
  );
  return { samples, perSecond: (total / (performance.now() - started)) * 1000 };
}

const rate = (perSecond: number) => `${Math.round(perSecond)}/s with ${CONCURRENCY} concurrent callers`;

export const postsCase: BenchCase = {
  name: 'posts',
  async run(bench) {
    const users = await ensureAuthors(bench);
    const runs = iterations(bench, 300);
    const author = (i: number) => users[i % USERS];
    const create = (i: number) => bench.call('posts.create', { post_type: 'text', content: `Bench post ${i} about the street market` }, author(i));
    const out: Measurement[] = [];

    out.push({ name: 'posts.create (text), one at a time', samples: await measure(create, { iterations: runs, warmup: 20 }) });
    const creates = await underLoad(runs * 4, (i) => create(runs + 20 + i));
    out.push({ name: 'posts.create (text), concurrent', samples: creates.samples, note: rate(creates.perSecond) });

    const hot = (await bench.call('posts.create', { post_type: 'text', content: 'The hot post' }, users[0])).body as { id: string };
    const like = (postId: string, i: number) => bench.call('posts.like', { post_id: postId }, author(i));
    out.push({ name: 'posts.like toggle, one at a time (one post)', samples: await measure((i) => like(hot.id, i), { iterations: runs, warmup: 20 }) });
    const hotLoad = await underLoad(runs * 4, (i) => like(hot.id, i));
    out.push({ name: 'posts.like toggle, concurrent, one hot post', samples: hotLoad.samples, note: rate(hotLoad.perSecond) });

    const spread: string[] = [];
    for (let i = 0; i < USERS; i++) spread.push(((await create(100_000 + i)).body as { id: string }).id);
    const spreadLoad = await underLoad(runs * 4, (i) => like(spread[(i * 7) % USERS], i));
    out.push({ name: 'posts.like toggle, concurrent, 200 posts', samples: spreadLoad.samples, note: rate(spreadLoad.perSecond) });

    // A community post tells every other member (new_post): one set-based notifyMany over 10,000 members.
    const community = await ensureCommunity(bench, users[0]);
    const fanOut = await measure((i) => bench.call('posts.create', { post_type: 'text', content: `Community news ${i}`, community_id: community }, author(i)), { iterations: 5, warmup: 1 });
    out.push({ name: `posts.create in a community of ${COMMUNITY_MEMBERS.toLocaleString('en')}`, samples: fanOut, note: `${COMMUNITY_MEMBERS - 1} new_post notifications per post` });
    await bench.pool.query(`DELETE FROM notifications WHERE notification_type = 'new_post' AND target_id IN (SELECT id FROM posts WHERE community_id = $1)`, [community]);
    await bench.pool.query('DELETE FROM posts WHERE community_id = $1', [community]);
    return out;
  },
};
