import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import jwt from 'jsonwebtoken';
import { platform } from '../../src/platform/index.js';
import { signAccessToken } from '../../src/modules/accounts/tokens.js';
import { loadAuthUsers, seededRandom, type Bench } from '../lib/harness.js';
import { measure, percentile } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';
import { DEFAULT_FEED_POSTS, ensureFeedsDataset } from './feeds-data.js';

/**
 * Feeds at scale: 1,000,000 posts over 10,000 locations (`--feed-posts=N` for a smaller dataset).
 * - The neighbourhood feed's page 1 and page 2, the general feed and a location feed, in-process through
 *   runOperation (one call at a time), and the neighbourhood page 1 over HTTP.
 * - Throughput with CONCURRENCY closed-loop HTTP clients (keep-alive), side by side in this run with a bare
 *   Express route on the same pool that checks the bearer token and serves one indexed 15-row SELECT of the
 *   same place's posts. Each request is a different reader (a token each), so rate limits (600 reads a minute
 *   per user) stay on as in production.
 */
const CONCURRENCY = 20;
const READERS = 3000;
const LOAD_MS = 10_000;
const WARMUP_MS = 2_000;

const postsFlag = () => {
  const flag = process.argv.find((a) => a.startsWith('--feed-posts='));
  return flag ? Number(flag.split('=')[1]) : DEFAULT_FEED_POSTS;
};

interface LoadRun {
  samples: number[];
  rps: number;
  errors: number;
}

/** Closed loop: each client sends its next GET as soon as the last is answered; `path(i)` varies the reader. */
async function closedLoop(base: string, path: (i: number) => { url: string; token: string }): Promise<LoadRun> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const get = (url: string, token: string) =>
    new Promise<boolean>((resolve, reject) => {
      const req = http.get(base + url, { agent, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
      });
      req.on('error', reject);
    });
  let n = 0;
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
  timing = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, LOAD_MS));
  stop = true;
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(clients);
  agent.destroy();
  return { samples, rps: samples.length / seconds, errors };
}

/** The bare baseline: bearer check, then one indexed 15-row SELECT of a place's posts, as JSON. */
async function startBareRoute(): Promise<{ url: string; stop: () => Promise<void> }> {
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

const loadNote = (run: LoadRun, extra = '') =>
  `${Math.round(run.rps)} req/s with ${CONCURRENCY} clients, p50 ${percentile([...run.samples].sort((a, b) => a - b), 50).toFixed(1)} ms, ${run.errors} errors${extra}`;

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

    const first = (i: number) => bench.call('feeds.neighbourhood', {}, reader(i));
    out.push({ name: 'feeds.neighbourhood page 1, in-process', samples: await measure(first, { iterations: runs, warmup: 50 }) });
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
    out.push({ name: 'feeds.enhancements.users, in-process', samples: await measure((i) => bench.call('feeds.enhancements.users', {}, reader(i + 19)), { iterations: runs, warmup: 20 }) });
    out.push({
      name: 'GET neighbourhood page 1 over HTTP, one at a time',
      samples: await measure((i) => bench.http('GET', '/api/feed/hybrid/neighbourhood/', { token: tokens[(i + 23) % tokens.length] }), { iterations: runs, warmup: 20 }),
    });

    const bare = await startBareRoute();
    try {
      const bareRun = await closedLoop(bare.url, (i) => ({ url: `/bare/feed/${homeOf.get(reader(i).id)}`, token: tokens[i % tokens.length] }));
      out.push({ name: 'bare Express: one indexed 15-row SELECT, 20 clients', samples: bareRun.samples, note: loadNote(bareRun) });
      const feedRun = await closedLoop(bench.server.url, (i) => ({ url: '/api/feed/hybrid/neighbourhood/', token: tokens[(i + 29) % tokens.length] }));
      out.push({
        name: 'GET neighbourhood page 1 over HTTP, 20 clients',
        samples: feedRun.samples,
        note: loadNote(feedRun, `; ${(feedRun.rps / bareRun.rps).toFixed(2)} of the bare route`),
      });
    } finally {
      await bare.stop();
    }
    return out;
  },
};
