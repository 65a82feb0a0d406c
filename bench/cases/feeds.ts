import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import express from 'express';
import jwt from 'jsonwebtoken';
import { platform } from '../../src/platform/index.js';
import { accessReads, accessUserCache, signAccessToken } from '../../src/modules/accounts/tokens.js';
import type { AuthUser } from '../../src/core/context.js';
import { loadAuthUsers, seededRandom, type Bench } from '../lib/harness.js';
import { measure, percentile } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';
import { DEFAULT_FEED_POSTS, ensureFeedsDataset } from './feeds-data.js';
import { clearScopeCache } from '../../src/modules/feeds/scope-cache.js';
import { feedPageRows, type PageQuery } from '../../src/modules/feeds/ranking.js';

/**
 * Feeds at scale: 1,000,000 posts over 10,000 locations (`--feed-posts=N` for a smaller dataset).
 * - The neighbourhood feed's page 1 and page 2, the general feed and a location feed, in-process through
 *   runOperation (one call at a time), and the neighbourhood page 1 over HTTP.
 * - Throughput with CONCURRENCY closed-loop HTTP clients (keep-alive), side by side in this run with a bare
 *   Express route on the same pool that checks the bearer token and serves one indexed 15-row SELECT of the
 *   same place's posts, the two taking turns (ROUNDS). Each request is a different reader (a token each), so rate
 *   limits (600 reads a minute per user) stay on as in production. The load generator runs in this process, as
 *   the server does: its cost per request is the same for both routes.
 */
const CONCURRENCY = 20;
const READERS = 3000;
/**
 * The bare route and the feed take turns, ROUNDS times, each for WARMUP_MS untimed and LOAD_MS timed: on a
 * shared machine whose load drifts, both see the same conditions (run one after the other, a change of load
 * between the two runs moved the ratio by more than the difference being measured).
 */
const ROUNDS = 3;
const LOAD_MS = 4_000;
const WARMUP_MS = 1_000;
/** Untimed load on each route before the rounds. */
const WARMUP_ROUND_MS = 3_000;

const postsFlag = () => {
  const flag = process.argv.find((a) => a.startsWith('--feed-posts='));
  return flag ? Number(flag.split('=')[1]) : DEFAULT_FEED_POSTS;
};

interface LoadRun {
  samples: number[];
  rps: number;
  errors: number;
  /** CPU spent over the timed window (ms): this process (server and load generator), PostgreSQL (null: not readable here). */
  cpu?: { node: number; pg: number | null };
}

/**
 * CPU time (ms) of the backends serving this database, from /proc: readable when PostgreSQL runs on this
 * machine under a user whose processes we may read; null otherwise. Backends that end during a window are lost,
 * which is why the pool's idle timeout (30 s) is longer than a window.
 */
export async function postgresCpuMs(pool: pg.Pool): Promise<number | null> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  const ticksPerSecond = 100;
  let total = 0;
  for (const { pid } of rows) {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
    if (stat === null) return null;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total += Number(fields[11]) + Number(fields[12]);
  }
  return (total * 1000) / ticksPerSecond;
}

/** Closed loop: each client sends its next GET as soon as the last is answered; `path(i)` varies the reader. */
export async function closedLoop(base: string, path: (i: number) => { url: string; token: string }, from = 0, loadMs = LOAD_MS, pool?: pg.Pool): Promise<LoadRun> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const get = (url: string, token: string) =>
    new Promise<boolean>((resolve, reject) => {
      const req = http.get(base + url, { agent, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
      });
      req.on('error', reject);
    });
  let n = from;
  let timing = false;
  let stop = false;
  let errors = 0;
  const samples: number[] = [];
  const client = async () => {
    while (!stop) {
      const { url, token } = path(n++);
      const t = performance.now();
      const ok = await get(url, token).catch(() => false);
      if (!timing) continue;
      samples.push(performance.now() - t);
      if (!ok) errors++;
    }
  };
  const clients = Array.from({ length: CONCURRENCY }, client);
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const pg0 = pool ? await postgresCpuMs(pool) : null;
  const cpu0 = process.cpuUsage();
  timing = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, loadMs));
  stop = true;
  const seconds = (performance.now() - started) / 1000;
  const cpu1 = process.cpuUsage(cpu0);
  const pg1 = pool && pg0 !== null ? await postgresCpuMs(pool) : null;
  await Promise.all(clients);
  agent.destroy();
  const cpu = pool ? { node: (cpu1.user + cpu1.system) / 1000, pg: pg0 !== null && pg1 !== null ? pg1 - pg0 : null } : undefined;
  return { samples, rps: samples.length / seconds, errors, cpu };
}

/** Readers who blocked BLOCKS_EACH people and muted as many others (DESIGN.md section 9), drawn from all authors. */
const HEAVY_BLOCKERS = 100;
const BLOCKS_EACH = 1000;

/**
 * Page 1 of the neighbourhood feed for readers with 1,000 blocks and 1,000 mutes each, against the same readers'
 * page 1 with none, measured just before in the same run. The people hidden are drawn at random (seeded) from the
 * dataset's 10,000 authors: a tenth of them blocked, another tenth muted, so a fifth of the posts around each
 * reader are filtered out by the feed's NOT EXISTS probes. The relations are removed afterwards.
 */
async function withBlocksAndMutes(bench: Bench, blockers: AuthUser[], runs: number): Promise<Measurement[]> {
  const ids = blockers.map((b) => b.id);
  const read = (i: number) => bench.call('feeds.neighbourhood', {}, blockers[i % blockers.length]);
  const clear = async () => {
    await bench.pool.query('DELETE FROM user_blocks WHERE blocker_id = ANY($1::uuid[])', [ids]);
    await bench.pool.query('DELETE FROM user_mutes WHERE muter_id = ANY($1::uuid[])', [ids]);
  };
  await clear();
  for (let i = 0; i < blockers.length; i++) await read(i);
  const without = await measure(read, { iterations: runs, warmup: 20 });
  const hidden = (offset: number) => `
    SELECT b, u.id FROM unnest($1::uuid[]) AS b CROSS JOIN LATERAL (
      SELECT id FROM users WHERE username LIKE 'feedbench\\_%' AND id <> b ORDER BY md5(id::text || b::text) OFFSET ${offset} LIMIT ${BLOCKS_EACH}) u`;
  const blocked = await bench.pool.query(`INSERT INTO user_blocks (blocker_id, blocked_id) ${hidden(0)}`, [ids]);
  const muted = await bench.pool.query(`INSERT INTO user_mutes (muter_id, muted_id) ${hidden(BLOCKS_EACH)}`, [ids]);
  if (blocked.rowCount !== ids.length * BLOCKS_EACH || muted.rowCount !== ids.length * BLOCKS_EACH) throw new Error('the blocks and mutes were not all written');
  await bench.pool.query('ANALYZE user_blocks; ANALYZE user_mutes');
  try {
    for (let i = 0; i < blockers.length; i++) await read(i);
    const withRelations = await measure(read, { iterations: runs, warmup: 20 });
    // The measured pages are filtered ones: no post of a hidden author on any reader's page 1.
    const { rows: hiddenAuthors } = await bench.pool.query<{ blocker: string; author: string }>(
      'SELECT blocker_id AS blocker, blocked_id AS author FROM user_blocks WHERE blocker_id = ANY($1::uuid[]) UNION ALL SELECT muter_id, muted_id FROM user_mutes WHERE muter_id = ANY($1::uuid[])',
      [ids],
    );
    const hiddenPairs = new Set(hiddenAuthors.map((r) => `${r.blocker}/${r.author}`));
    let shown = 0;
    for (let i = 0; i < blockers.length; i++) {
      const page = (await read(i)).body as { items: Array<{ user: { id: string } }> };
      shown += page.items.filter((p) => hiddenPairs.has(`${blockers[i].id}/${p.user.id}`)).length;
    }
    if (shown) throw new Error(`${shown} posts of hidden authors were on the measured pages`);
    const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
    return [
      { name: `feeds.neighbourhood page 1, ${blockers.length} readers with no block, in-process`, samples: without },
      {
        name: `feeds.neighbourhood page 1, the same readers with ${BLOCKS_EACH} blocks + ${BLOCKS_EACH} mutes each, in-process`,
        samples: withRelations,
        note: `median ${(median(withRelations) / median(without)).toFixed(2)}x the same readers' without`,
      },
    ];
  } finally {
    await clear();
  }
}

/**
 * What the visibility conditions (blocks both ways, mutes, moderation: src/modules/policy) cost the feed: page 1 of
 * the neighbourhood feed's statement (ranking.ts `feedPageRows`, the places kept for the reader's home given, as the
 * service's page 1 does) against the same statement built without them (`withoutVisibility`), same readers, same
 * run, taking turns. Nobody among these readers blocks or mutes anyone (the bench's usual state), so both answer the
 * same posts; the ratio is what the conditions cost a reader with nothing to hide. Two ways:
 * - one at a time, the two alternating per reader: medians;
 * - CONCURRENCY closed-loop callers in this process for VISIBILITY_LOAD_MS, the two alternating ROUNDS times:
 *   statements a second, and the ratio of the two (the target: with them at 0.9 of without or better).
 */
const VISIBILITY_LOAD_MS = 3_000;
async function visibilityCost(readers: AuthUser[], runs: number): Promise<Measurement[]> {
  // The places around each reader's home, found once (untimed), then given as the service's kept places are.
  const kept = new Map<string, { homeId: string; places: Awaited<ReturnType<typeof feedPageRows>>['places'] }>();
  const query = (reader: AuthUser, visibility: boolean): PageQuery => ({
    source: { around: 'neighbourhood', kept: kept.get(reader.id) },
    everything: false,
    snapshotAt: new Date(),
    after: null,
    skip: 0,
    take: 16,
    show: 15,
    ...(visibility ? {} : { withoutVisibility: true as const }),
  });
  for (const reader of readers) {
    const found = await feedPageRows({ ...query(reader, true), source: { around: 'neighbourhood' } }, reader.id);
    if (found.home) kept.set(reader.id, { homeId: found.home.id, places: found.places });
  }
  const page = (i: number, visibility: boolean) => {
    const reader = readers[i % readers.length];
    return feedPageRows(query(reader, visibility), reader.id);
  };
  // Both answer the same posts for these readers (no block, mute or hidden post among them).
  for (let i = 0; i < Math.min(50, readers.length); i++) {
    const [a, b] = await Promise.all([page(i, true), page(i, false)]);
    if (a.items.map((x) => x.id).join() !== b.items.map((x) => x.id).join()) throw new Error('the feed with and without visibility conditions differ for a reader who hides nobody');
  }
  const withSamples: number[] = [];
  const withoutSamples: number[] = [];
  for (let i = 0; i < runs + 20; i++) {
    for (const visibility of i % 2 ? [true, false] : [false, true]) {
      const t = performance.now();
      await page(i, visibility);
      if (i >= 20) (visibility ? withSamples : withoutSamples).push(performance.now() - t);
    }
  }
  const load = async (visibility: boolean, from: number): Promise<number> => {
    let n = from;
    let done = 0;
    let stop = false;
    const caller = async () => {
      while (!stop) {
        await page(n++, visibility);
        done++;
      }
    };
    const started = performance.now();
    const callers = Array.from({ length: CONCURRENCY }, caller);
    await new Promise((r) => setTimeout(r, VISIBILITY_LOAD_MS));
    stop = true;
    await Promise.all(callers);
    return done / ((performance.now() - started) / 1000);
  };
  await load(true, 0);
  await load(false, 0);
  const rates: Array<{ with: number; without: number }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const first = round % 2 === 0;
    const a = await load(first, round * 10_000);
    const b = await load(!first, round * 10_000);
    rates.push(first ? { with: a, without: b } : { with: b, without: a });
  }
  const sum = (xs: number[]) => xs.reduce((t, x) => t + x, 0);
  const rpsWith = sum(rates.map((r) => r.with)) / ROUNDS;
  const rpsWithout = sum(rates.map((r) => r.without)) / ROUNDS;
  const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
  return [
    {
      name: 'feed statement page 1 without the visibility conditions, in-process',
      samples: withoutSamples,
      note: `${Math.round(rpsWithout)} statements/s with ${CONCURRENCY} callers`,
    },
    {
      name: 'feed statement page 1 with the visibility conditions (blocks, mutes, moderation), in-process',
      samples: withSamples,
      note:
        `${Math.round(rpsWith)} statements/s with ${CONCURRENCY} callers: ${(rpsWith / rpsWithout).toFixed(2)} of without ` +
        `(rounds: ${rates.map((r) => `${(r.with / r.without).toFixed(2)} = ${Math.round(r.with)}/${Math.round(r.without)}`).join(', ')}); ` +
        `median ${(median(withoutSamples) / median(withSamples)).toFixed(2)} of without's speed`,
    },
  ];
}

/** The bare baseline: bearer check, then one indexed 15-row SELECT of a place's posts, as JSON. */
export async function startBareRoute(): Promise<{ url: string; stop: () => Promise<void> }> {
  const app = express();
  const pool = platform.database.pool;
  app.get('/bare/feed/:location', async (req, res) => {
    try {
      const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
      const claims = token ? (jwt.verify(token, platform.jwtKey, { algorithms: ['HS256'] }) as jwt.JwtPayload) : null;
      if (!claims?.sub) return void res.status(401).json({ detail: 'Given token not valid for any token type' });
      const { rows } = await pool.query(
        `SELECT id, user_id, post_type, content, location_id, likes_count, comments_count, views_count, created_at, updated_at
         FROM posts WHERE location_id = $1 ORDER BY rank_score DESC, id DESC LIMIT 15`,
        [req.params.location],
      );
      res.json({ items: rows });
    } catch {
      res.status(500).json({ detail: 'A server error occurred.' });
    }
  });
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => new Promise((r) => server.close(() => r())) };
}

/** Rounds of one route as one run: all samples, requests per second over the timed windows together. */
const combine = (runs: LoadRun[]): LoadRun => {
  const requests = runs.reduce((n, r) => n + r.samples.length, 0);
  const seconds = runs.reduce((t, r) => t + r.samples.length / r.rps, 0);
  const cpu = runs.every((r) => r.cpu)
    ? { node: runs.reduce((t, r) => t + r.cpu!.node, 0), pg: runs.every((r) => r.cpu!.pg !== null) ? runs.reduce((t, r) => t + r.cpu!.pg!, 0) : null }
    : undefined;
  return { samples: runs.flatMap((r) => r.samples), rps: requests / seconds, errors: runs.reduce((n, r) => n + r.errors, 0), cpu };
};

/**
 * CPU per answered request (ms) over the timed windows: this process (server + load generator), PostgreSQL,
 * and both. Unlike req/s it hardly depends on what else the machine runs, and with every core busy the
 * throughput ratio of two routes tends to the inverse ratio of their total CPU per request.
 */
const cpuPerRequest = (run: LoadRun) =>
  run.cpu ? { node: run.cpu.node / run.samples.length, pg: run.cpu.pg === null ? null : run.cpu.pg / run.samples.length } : null;

const cpuNote = (run: LoadRun) => {
  const cpu = cpuPerRequest(run);
  if (!cpu) return '';
  return `; CPU per request: ${cpu.node.toFixed(2)} ms here${cpu.pg === null ? '' : ` + ${cpu.pg.toFixed(2)} ms PostgreSQL = ${(cpu.node + cpu.pg).toFixed(2)} ms`}`;
};

/** The bare route's total CPU per request over this run's: the throughput ratio a machine with nothing else to run would show. */
const cpuRatio = (run: LoadRun, bare: LoadRun) => {
  const a = cpuPerRequest(run);
  const b = cpuPerRequest(bare);
  return a && b && a.pg !== null && b.pg !== null ? `; CPU ratio ${((b.node + b.pg) / (a.node + a.pg)).toFixed(2)}` : '';
};

const loadNote = (run: LoadRun, extra = '') =>
  `${Math.round(run.rps)} req/s with ${CONCURRENCY} clients, p50 ${percentile([...run.samples].sort((a, b) => a - b), 50).toFixed(1)} ms, ${run.errors} errors${cpuNote(run)}${extra}`;

export const feedsCase: BenchCase = {
  name: 'feeds',
  async run(bench: Bench) {
    const posts = postsFlag();
    if (await ensureFeedsDataset(bench.pool, posts, bench.args.regenerate)) console.log(`[feeds data] ${posts} posts generated`);
    // Readers drawn across all places with the same skew as the posts: busy places have more readers.
    const random = seededRandom(11);
    const ordinals = [...new Set(Array.from({ length: READERS * 2 }, () => 1 + Math.floor(10_000 * random() ** 1.5)))].slice(0, READERS);
    const readers = await loadAuthUsers(bench.pool, 'lower(username) IN (SELECT unnest($1::text[])) ORDER BY username', [ordinals.map((n) => `feedbench_${n}`)]);
    const { rows: homes } = await bench.pool.query<{ id: string; location_id: string }>('SELECT id, location_id FROM users WHERE id = ANY($1)', [readers.map((r) => r.id)]);
    const homeOf = new Map(homes.map((h) => [h.id, h.location_id]));
    const tokens = readers.map((r) => signAccessToken(r.id));
    const reader = (i: number) => readers[i % readers.length];
    const runs = iterations(bench, 400);
    const out: Measurement[] = [];
    // `--feeds-visibility-only`: just the cost of the visibility conditions (below), for a quick before/after.
    if (process.argv.includes('--feeds-visibility-only')) return visibilityCost(readers.slice(0, 1000), runs);

    const first = (i: number) => bench.call('feeds.neighbourhood', {}, reader(i));
    // Page 1 of readers read once before (untimed): the places kept around their homes are given to the statement
    // (scope-cache.ts). Then page 1 of readers never seen, whose statement finds the places around them itself.
    clearScopeCache();
    for (let i = 0; i < runs + 50; i++) await first(i);
    out.push({ name: 'feeds.neighbourhood page 1, in-process', samples: await measure(first, { iterations: runs, warmup: 50 }) });
    out.push({ name: 'feeds.neighbourhood page 1, places found, in-process', samples: await measure((i) => first(i + 1000), { iterations: runs, warmup: 20 }) });
    // Page 2 continues each reader's snapshot (page 1 read just before, untimed); readers with one page are skipped.
    const seconds: number[] = [];
    for (let i = 0; i < runs; i++) {
      const page1 = (await first(i + 7)).body as { has_more: boolean };
      if (!page1.has_more) continue;
      const t = performance.now();
      await bench.call('feeds.neighbourhood', { page: 2 }, reader(i + 7));
      seconds.push(performance.now() - t);
    }
    out.push({ name: 'feeds.neighbourhood page 2, in-process', samples: seconds });
    out.push({ name: 'feeds.general page 1, in-process', samples: await measure((i) => bench.call('feeds.general', {}, reader(i + 13)), { iterations: runs, warmup: 20 }) });
    out.push({
      name: 'feeds.location page 1, in-process',
      samples: await measure((i) => bench.call('feeds.location', { location_id: homeOf.get(reader(i + 17).id) }, reader(i + 17)), { iterations: runs, warmup: 20 }),
    });
    out.push(...(await withBlocksAndMutes(bench, readers.slice(0, HEAVY_BLOCKERS), runs)));
    out.push(...(await visibilityCost(readers.slice(0, 1000), runs)));
    out.push({ name: 'feeds.enhancements.users, in-process', samples: await measure((i) => bench.call('feeds.enhancements.users', {}, reader(i + 19)), { iterations: runs, warmup: 20 }) });
    out.push({
      name: 'GET neighbourhood page 1 over HTTP, one at a time',
      samples: await measure((i) => bench.http('GET', '/api/feed/hybrid/neighbourhood/', { token: tokens[(i + 23) % tokens.length] }), { iterations: runs, warmup: 20 }),
    });

    const bare = await startBareRoute();
    try {
      const bareRuns: LoadRun[] = [];
      const feedRuns: LoadRun[] = [];
      // Each round goes on with the next readers: the feed's requests are page 1 of readers it has not served yet
      // in this run (as many as the 3,000 readers allow), like the first round's.
      let next = 0;
      // Both routes warm up first, untimed: the bare route's code is new to this process (the service's has
      // served every case above), and measured cold in the first round it gave the feed 0.1 to 0.15 of ratio.
      for (const run of [
        () => closedLoop(bare.url, (i) => ({ url: `/bare/feed/${homeOf.get(reader(i).id)}`, token: tokens[i % tokens.length] }), 0, WARMUP_ROUND_MS),
        () => closedLoop(bench.server.url, (i) => ({ url: '/api/feed/hybrid/neighbourhood/', token: tokens[(i + 29) % tokens.length] }), 0, WARMUP_ROUND_MS),
      ])
        next += (await run()).samples.length;
      const profileRuns: LoadRun[] = [];
      const checks0 = { reads: accessReads.callers, hits: accessUserCache.counts.hits };
      for (let round = 0; round < ROUNDS; round++) {
        bareRuns.push(await closedLoop(bare.url, (i) => ({ url: `/bare/feed/${homeOf.get(reader(i).id)}`, token: tokens[i % tokens.length] }), next, LOAD_MS, bench.pool));
        const feedRun = await closedLoop(bench.server.url, (i) => ({ url: '/api/feed/hybrid/neighbourhood/', token: tokens[(i + 29) % tokens.length] }), next, LOAD_MS, bench.pool);
        feedRuns.push(feedRun);
        next += feedRun.samples.length + Math.round((feedRun.rps * WARMUP_MS) / 1000);
        profileRuns.push(await closedLoop(bench.server.url, (i) => ({ url: '/api/users/profile/', token: tokens[i % tokens.length] }), next, LOAD_MS, bench.pool));
      }
      // Caller checks over the rounds (warm-up included): answered by accessUserCache, or read (shared reads).
      const read = accessReads.callers - checks0.reads;
      const hits = accessUserCache.counts.hits - checks0.hits;
      const checksNote = `; caller checks: ${((100 * hits) / Math.max(1, hits + read)).toFixed(0)} % from the cache`;
      const bareRun = combine(bareRuns);
      const feedRun = combine(feedRuns);
      const profileRun = combine(profileRuns);
      const ratios = feedRuns.map((f, i) => f.rps / bareRuns[i].rps);
      out.push({ name: 'bare Express: one indexed 15-row SELECT, 20 clients', samples: bareRun.samples, note: loadNote(bareRun) });
      out.push({
        name: 'GET neighbourhood page 1 over HTTP, 20 clients',
        samples: feedRun.samples,
        note: loadNote(
          feedRun,
          `; ${(feedRun.rps / bareRun.rps).toFixed(2)} of the bare route (rounds: ${ratios.map((r, i) => `${r.toFixed(2)} = ${Math.round(feedRuns[i].rps)}/${Math.round(bareRuns[i].rps)}`).join(', ')})${cpuRatio(feedRun, bareRun)}${checksNote}`,
        ),
      });
      // For scale: the service's request path with the least work behind it (caller lookup + one read).
      out.push({
        name: 'GET /api/users/profile/ over HTTP, 20 clients',
        samples: profileRun.samples,
        note: loadNote(profileRun, `; ${(profileRun.rps / bareRun.rps).toFixed(2)} of the bare route${cpuRatio(profileRun, bareRun)}; the feed is ${(feedRun.rps / profileRun.rps).toFixed(2)} of it`),
      });
    } finally {
      await bare.stop();
    }
    return out;
  },
};
