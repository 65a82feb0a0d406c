import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/platform/config.js';
import { platform } from '../src/platform/index.js';
import { startEmbeddedDatabase } from '../src/platform/embedded-db.js';
import { createDatabaseIfMissing, loadAuthUsers } from './lib/harness.js';
import { percentile } from './lib/stats.js';

/**
 * `npm run bench -- search` (issue 36): search.query for posts on a generated dataset, on the server database and on
 * the embedded one, each beside a bare `pg` script replaying the very statements the service sent for the same query.
 *
 *   npm run bench -- search [--search-posts=N] [--embedded-posts=N] [--regenerate] [--duration=S] [--generate-only] [--max-chunks=K]
 *     [--only=common,rare,prefix,phrase,no]   (those queries only)
 *     [--type=comments] [--comments=N]   (search comments instead of posts, over N comments, 200,000 by default)
 *   npx tsx bench/search.ts --database=server|embedded ...   (one phase)
 *
 * Data (generated in SQL, generate_series, kept between runs; bench_dataset marks it): 10,000 places around one city,
 * one author per place, N posts (1,000,000 on the server by default, 100,000 on the embedded database) of 10
 * pseudo-words drawn from 3,000 with a skew (the 11th word is in about 5 % of posts), plus real words on a schedule:
 * "plumber" (2 %), "plumbing" (1.4 %), "street party" (0.5 %) and "street ... party" apart (0.5 %), "zanzibarite"
 * (1 in 100,000). Creation times over 90 days, written oldest first as a service writes them (so the table's physical
 * order follows time, which the newest-first walk of search reads: with random times, as the v1 dataset had, each
 * row it read was on a page of its own). With `--type=comments`, N comments (200,000 by default) copied from a
 * sample of those posts (TABLESAMPLE BERNOULLI, REPEATABLE): each under the post it copies, by its author, with its
 * text and creation time, so the words are as common in comments as in posts, the rare word's 10 posts all copied
 * (generated once, kept, marked too).
 *
 * Load: 20 closed-loop clients for `--duration` seconds (5) after 2 s untimed, in this process, on each query in turn:
 * the service's `search.query` (type posts, or comments with `--type=comments`; page 1 of 20, a signed-in caller
 * searching from a place: runOperation, the path both transports take, without HTTP), then the bare script on a pool
 * of the same size running the same SQL
 * (recorded from the service's pool for that query, in the rounds the service sends them: the place and the text
 * query together, then the page with its post rows and snippets). Throughput ratio = service / bare.
 *
 * Write cost (phase `writes`, database hl_search_writes with 20,000 posts): posts.create (text, 200 characters with two
 * hashtags) by 20 clients for `--duration` seconds with the search column, its index, the tags trigger and the tag uses'
 * index, then without them (column and indexes dropped, trigger disabled; the tags' GIN index stays, over empty
 * arrays), then with them again (put back as migrations 0029 and 0035 make them), twice each, alternating.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PLACES = 10_000;
const CLIENTS = 20;
// v2: posts are written oldest first (v1 gave each a random time, so the table's order had nothing to do with time).
const DATASET = 'search-v2';
const CHUNK = 100_000;

const argv = process.argv.slice(2);
const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const DURATION_MS = Number(flag('duration') ?? 5) * 1000;
const WARMUP_MS = 2000;

type Row = { name: string; p50: number; p99: number; rps: number; matches?: number; note?: string };

/** The words of the dataset, the same on both databases. */
export const QUERIES = (common: string) =>
  [
    { name: 'common word', q: common },
    { name: 'rare word', q: 'zanzibarite' },
    { name: 'prefix', q: 'plumb' },
    { name: 'phrase', q: '"street party"' },
    { name: 'no match', q: 'xyzzyqwerty' },
  ] as const;

/**
 * Generates the dataset in chunks of CHUNK posts. It resumes where an earlier, interrupted run stopped (the posts
 * already there are counted, and the numbering that decides the scheduled words goes on from there), and
 * `--max-chunks=K` stops after K chunks, so a large dataset can be made in short runs (each under the bench lock).
 */
async function ensureDataset(pool: pg.Pool, posts: number, regenerate: boolean): Promise<boolean> {
  const name = `${DATASET}:${posts}`;
  await pool.query('CREATE TABLE IF NOT EXISTS bench_dataset (name text PRIMARY KEY, generated_at timestamptz NOT NULL DEFAULT now(), seconds float8)');
  const { rowCount } = await pool.query('SELECT 1 FROM bench_dataset WHERE name = $1', [name]);
  if (rowCount && !regenerate) return true;
  const maxChunks = Number(flag('max-chunks') ?? Infinity);
  const started = Date.now();
  const step = (what: string) => console.log(`[search data] ${what} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  const client = await pool.connect();
  try {
    await client.query('SET statement_timeout = 0');
    // Only a generation of this very dataset (its `:started` mark) is resumed; another version's posts are cleared,
    // and with them every mark (the comments are copied from the posts).
    const begun = Number((await client.query('SELECT count(*) AS n FROM bench_dataset WHERE name = $1', [`${name}:started`])).rows[0].n) === 1;
    const resume = !regenerate && begun && Number((await client.query(`SELECT count(*) AS n FROM locations WHERE city = 'Searchbench'`)).rows[0].n) === PLACES;
    let done = 0;
    if (resume) {
      done = Number((await client.query(`SELECT count(*) AS n FROM posts WHERE user_id IN (SELECT id FROM users WHERE username LIKE 'searchbench\\_%')`)).rows[0].n);
      step(`resuming after ${done} posts`);
    } else {
      await client.query(`DELETE FROM bench_dataset WHERE name LIKE 'search-v%'`);
      await client.query('INSERT INTO bench_dataset (name) VALUES ($1)', [`${name}:started`]);
      await client.query(`DELETE FROM posts WHERE user_id IN (SELECT id FROM users WHERE username LIKE 'searchbench\\_%')`);
      await client.query(`DELETE FROM users WHERE username LIKE 'searchbench\\_%'`);
      await client.query(`DELETE FROM locations WHERE city = 'Searchbench'`);
      // The deleted rows' space given back (quick: few rows are left), so that the new posts are written in order
      // from the table's start and the sizes printed are the dataset's, not its predecessor's too.
      await client.query('VACUUM FULL posts');
      step('cleared');
      await client.query('SELECT setseed(0.36)');
      await client.query(`
      INSERT INTO locations (name, country, state, city, neighbourhood, latitude, longitude, point, center, center_latitude, center_longitude, estimated_radius, total_users, created_at)
      SELECT 'Searchbench place ' || g, 'Benchland', 'Bench', 'Searchbench', 'Searchbench place ' || g, lat, lon,
             ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography, lat, lon, 500, 1, now() - interval '100 days'
        FROM (SELECT g, 48.85 + (random() - 0.5) * 0.5 AS lat, 2.35 + (random() - 0.5) * 0.8 AS lon FROM generate_series(1, ${PLACES}) g) s`);
    }
    await client.query(`CREATE TEMP TABLE sb_places AS SELECT row_number() OVER (ORDER BY name) AS n, id FROM locations WHERE city = 'Searchbench'`);
    if (!resume) {
      await client.query(`
      INSERT INTO users (email, username, display_name, password_hash, referral_code, location_id, created_at)
      SELECT 'searchbench' || n || '@bench.invalid', 'searchbench_' || n, 'Search Bench ' || n, 'not-a-hash', 'SEARCHBENCH' || n, id, now() - interval '100 days' FROM sb_places`);
    }
    await client.query(`CREATE TEMP TABLE sb_authors AS SELECT p.n, u.id AS user_id, p.id AS location_id FROM sb_places p JOIN users u ON u.username = 'searchbench_' || p.n`);
    await client.query('CREATE UNIQUE INDEX ON sb_authors (n)');
    await client.query(`CREATE TEMP TABLE sb_words AS SELECT k, substr(translate(md5(k::text), '0123456789', 'ghijklmnop'), 1, 4 + k % 6) AS word FROM generate_series(0, 2999) k`);
    await client.query('CREATE UNIQUE INDEX ON sb_words (k)');
    step(`${PLACES} places and authors`);
    let chunks = 0;
    for (let from = done + 1; from <= posts; from += CHUNK) {
      if (chunks++ >= maxChunks) {
        step(`stopped after ${from - 1} posts (--max-chunks); run again to go on`);
        return false;
      }
      const to = Math.min(posts, from + CHUNK - 1);
      await client.query(`
        WITH draws AS MATERIALIZED (SELECT g, random() AS pick, (${posts} - g + random()) / ${posts} AS age FROM generate_series(${from}, ${to}) g)
        INSERT INTO posts (user_id, post_type, content, location_id, created_at, updated_at)
        SELECT a.user_id, 'text',
               (SELECT string_agg(w.word, ' ') FROM (SELECT floor(3000 * random() ^ 3)::int AS k FROM generate_series(1, 10 + 0 * d.g)) r JOIN sb_words w ON w.k = r.k)
               || CASE WHEN d.g % 50 = 0 THEN ' our plumber fixed the sink' WHEN d.g % 71 = 0 THEN ' plumbing trouble again' ELSE '' END
               || CASE WHEN d.g % 200 = 1 THEN ' join the street party' WHEN d.g % 200 = 2 THEN ' street cleaning before the party' ELSE '' END
               || CASE WHEN d.g % 100000 = 7 THEN ' zanzibarite' ELSE '' END,
               a.location_id, now() - d.age * interval '90 days', now() - d.age * interval '90 days'
          FROM draws d JOIN sb_authors a ON a.n = 1 + floor(${PLACES} * d.pick * d.pick)::int`);
      step(`${to} posts`);
    }
    await client.query('VACUUM ANALYZE posts');
    await client.query('ANALYZE locations');
    await client.query('ANALYZE users');
    step('analyzed');
    await client.query('INSERT INTO bench_dataset (name, seconds) VALUES ($1, $2)', [name, (Date.now() - started) / 1000]);
    await client.query('DELETE FROM bench_dataset WHERE name = $1', [`${name}:started`]);
    return true;
  } finally {
    await client.query('DROP TABLE IF EXISTS sb_places, sb_authors, sb_words').catch(() => undefined);
    client.release();
  }
}

/**
 * Comments for `--type=comments`: `count` comments copied from the dataset's posts (post, author, text and creation
 * time): the posts with the rare word, then a repeatable sample of the others, read in the heap's order, so the times
 * are scattered over the table as the posts' are. Kept between runs (bench_dataset).
 */
async function ensureComments(pool: pg.Pool, count: number): Promise<void> {
  const name = `${DATASET}-comments-v2:${count}`;
  if ((await pool.query('SELECT 1 FROM bench_dataset WHERE name = $1', [name])).rowCount) return;
  const started = Date.now();
  const client = await pool.connect();
  try {
    await client.query('SET statement_timeout = 0');
    await client.query(`DELETE FROM bench_dataset WHERE name LIKE '${DATASET}-comments%'`);
    await client.query(`DELETE FROM comments WHERE user_id IN (SELECT id FROM users WHERE username LIKE 'searchbench\\_%')`);
    const total = Number((await client.query('SELECT count(*) AS n FROM posts')).rows[0].n);
    const percent = Math.min(100, (100 * count * 1.05) / Math.max(1, total));
    const authors = `SELECT id FROM users WHERE username LIKE 'searchbench\\_%'`;
    // The rare word's posts all (a sample would keep about 2 of its 10), then the sample.
    const copy = (from: string, where: string, limit: number | string) => `
      INSERT INTO comments (post_id, user_id, content, created_at, updated_at)
      SELECT p.id, p.user_id, p.content, p.created_at, p.created_at FROM ${from}
       WHERE p.user_id IN (${authors}) AND ${where} LIMIT ${limit}`;
    const rare = (await client.query(copy('posts p', `p.search_vector @@ to_tsquery('hl_search', 'zanzibarite')`, 'ALL'))).rowCount ?? 0;
    await client.query(copy(`posts p TABLESAMPLE BERNOULLI (${percent}) REPEATABLE (36)`, `NOT p.search_vector @@ to_tsquery('hl_search', 'zanzibarite')`, count - rare));
    await client.query('VACUUM ANALYZE comments');
    await client.query('INSERT INTO bench_dataset (name, seconds) VALUES ($1, $2)', [name, (Date.now() - started) / 1000]);
    await client.query('DELETE FROM bench_dataset WHERE name = $1', [`${name}:started`]);
    console.log(`[search data] ${count} comments copied from posts (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    client.release();
  }
}

/** The word of rank 10 of the dataset's vocabulary (in about 5 % of posts). */
const commonWord = () => `substr(translate(md5('10'), '0123456789', 'ghijklmnop'), 1, ${4 + (10 % 6)})`;

const ROUNDS = 2;
type LoopResult = { p50: number; p99: number; rps: number; samples: number[] };
const combine = (runs: LoopResult[]): LoopResult => {
  const samples = runs.flatMap((r) => r.samples).sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), rps: runs.reduce((a, r) => a + r.rps, 0) / runs.length, samples };
};

async function closedLoop(once: (i: number) => Promise<void>): Promise<LoopResult> {
  let timing = false;
  let stop = false;
  const samples: number[] = [];
  let n = 0;
  const client = async () => {
    while (!stop) {
      const i = n++;
      const start = process.hrtime.bigint();
      await once(i);
      if (timing) samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  timing = true;
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, DURATION_MS));
  stop = true;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await Promise.all(clients);
  const sorted = samples.sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), rps: sorted.length / seconds, samples: sorted };
}

type Recorded = { text: string; values?: unknown[]; rowMode?: string; batch: number };

/** The statements the service's pool receives during `fn`, with the round (batch) each was sent in. */
async function record(pool: pg.Pool, fn: () => Promise<unknown>): Promise<Recorded[]> {
  const seen: Recorded[] = [];
  const original = pool.query.bind(pool);
  let batch = 0;
  let inFlight = 0;
  (pool as any).query = (config: any, values?: any, cb?: any) => {
    if (inFlight === 0) batch++;
    const q = typeof config === 'string' ? { text: config, values } : config;
    // Not the request's: the outbox worker drains on the same pool in the background.
    if (!/FROM outbox/.test(q.text)) seen.push({ text: q.text, values: q.values ?? values, rowMode: q.rowMode, batch });
    inFlight++;
    const done = (x: unknown) => {
      inFlight--;
      return x;
    };
    return (original as any)(config, values, cb).then(done, (e: unknown) => {
      inFlight--;
      throw e;
    });
  };
  try {
    await fn();
  } finally {
    (pool as any).query = original;
  }
  return seen;
}

async function replay(pool: pg.Pool, statements: Recorded[]): Promise<void> {
  const batches = new Map<number, Recorded[]>();
  for (const s of statements) batches.set(s.batch, [...(batches.get(s.batch) ?? []), s]);
  for (const group of batches.values()) await Promise.all(group.map((s) => (pool.query as (c: object) => Promise<unknown>)({ text: s.text, values: s.values, rowMode: s.rowMode })));
}

async function runPhase(database: 'server' | 'embedded' | 'writes'): Promise<Row[]> {
  const posts = database === 'writes' ? 20_000 : Number(flag(database === 'server' ? 'search-posts' : 'embedded-posts') ?? (database === 'server' ? 1_000_000 : 100_000));
  const dataDir = database === 'embedded' ? path.join(os.tmpdir(), `hl-search-bench-embedded-${posts}`) : await fs.mkdtemp(path.join(os.tmpdir(), 'hl-search-bench-'));
  await fs.mkdir(dataDir, { recursive: true });
  let databaseUrl: string | undefined;
  let embedded: ReturnType<typeof startEmbeddedDatabase> | undefined;
  if (database === 'writes') {
    databaseUrl = process.env.BENCH_WRITES_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/hl_search_writes';
    await createDatabaseIfMissing(databaseUrl);
  } else if (database === 'server') {
    databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/hl_search_bench';
    await createDatabaseIfMissing(databaseUrl);
  } else {
    embedded = startEmbeddedDatabase({ dataDir: path.join(dataDir, 'pglite') });
  }
  const config = loadConfig({}, { PORT: 0, HOST: '127.0.0.1', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), DATA_DIR: dataDir, LOG_LEVEL: 'silent', NODE_ENV: 'production', RATE_LIMITS: 'off' });
  const { startServer } = await import('../src/server.js');
  const { operations } = await import('../src/registry.js');
  const { runOperation } = await import('../src/core/run-operation.js');
  const server = await startServer(config, { jobs: false, embedded });
  const rows: Row[] = [];
  try {
    const pool = platform.database.pool;
    const ready = await ensureDataset(pool, posts, argv.includes('--regenerate'));
    const type = flag('type') === 'comments' ? 'comments' : 'posts';
    if (ready && type === 'comments') await ensureComments(pool, Number(flag('comments') ?? 200_000));
    if (!ready || argv.includes('--generate-only')) return rows;
    const common = (await pool.query<{ w: string }>(`SELECT ${commonWord()} AS w`)).rows[0].w;
    const users = await loadAuthUsers(pool, `username LIKE 'searchbench\\_%' ORDER BY username LIMIT 200`);
    const homes = new Map((await pool.query<{ id: string; location_id: string }>(`SELECT id, location_id FROM users WHERE id = ANY($1::uuid[])`, [users.map((u) => u.id)])).rows.map((r) => [r.id, r.location_id]));
    const op = operations.find((o) => o.name === 'search.query')!;
    const runner = { rateLimits: platform.rateLimits, onUnexpectedError: (err: unknown) => console.error('[bench] search failed', err) };
    const ctx = (i: number) => ({
      transport: 'http' as const,
      requestId: crypto.randomUUID(),
      user: users[i % users.length],
      authError: false,
      ip: '10.0.0.1',
      userAgent: 'bench',
      baseUrl: server.url,
      cookies: {},
    });
    const input = (q: string, i: number) => ({ q, type, location_id: homes.get(users[i % users.length].id) });
    if (database === 'writes') {
      rows.push(...(await writeCost(users, server.url)));
      return rows;
    }
    const bare = new pg.Pool({ connectionString: database === 'server' ? databaseUrl : (await embedded!).connectionString, max: pool.options.max });
    try {
      const only = flag('only')?.split(',');
      for (const { name, q } of QUERIES(common).filter((x) => !only || only.some((o) => x.name.startsWith(o)))) {
        const first = await runOperation(runner, op, input(q, 0), ctx(0));
        if (first.status !== 200) throw new Error(`search answered ${first.status}`);
        const matches = (first.body as { count: number }).count;
        // The statements of one request per caller (their place and id are parameters), recorded once each.
        const recorded = new Map<number, Recorded[]>();
        for (let u = 0; u < Math.min(users.length, 20); u++) recorded.set(u, await record(pool, () => runOperation(runner, op, input(q, u), ctx(u))));
        // The two take turns (ROUNDS each), so a shared machine's changing load falls on both alike.
        const serviceRuns: LoopResult[] = [];
        const bareRuns: LoopResult[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          serviceRuns.push(
            await closedLoop(async (i) => {
              const r = await runOperation(runner, op, input(q, i % 20), ctx(i % 20));
              if (r.status !== 200) throw new Error(`search answered ${r.status}`);
            }),
          );
          bareRuns.push(await closedLoop((i) => replay(bare, recorded.get(i % 20)!)));
        }
        const service = combine(serviceRuns);
        const bareRun = combine(bareRuns);
        const statements = recorded.get(0)!.length;
        // SEARCH_BENCH_DUMP=dir: the recorded statements of the first caller, as JSON, for EXPLAIN by hand.
        if (process.env.SEARCH_BENCH_DUMP) await fs.writeFile(path.join(process.env.SEARCH_BENCH_DUMP, `${database}-${name.replace(/ /g, "-")}.json`), JSON.stringify(recorded.get(0)));
        if (process.env.SEARCH_BENCH_DEBUG) {
          for (const st of recorded.get(0)!) console.log(st.batch, st.text.replace(/\s+/g, ' ').slice(0, 160));
          const t0 = performance.now();
          for (let k = 0; k < 20; k++) await runOperation(runner, op, input(q, k), ctx(k));
          const t1 = performance.now();
          for (let k = 0; k < 20; k++) await replay(bare, recorded.get(k)!);
          console.log(`sequential: service ${((t1 - t0) / 20).toFixed(1)} ms, bare ${((performance.now() - t1) / 20).toFixed(1)} ms`);
        }
        const strip = ({ samples: _s, ...rest }: LoopResult) => rest;
        const perRound = serviceRuns.map((r, k) => (r.rps / bareRuns[k].rps).toFixed(2)).join(', ');
        rows.push({ name: `${database}: ${type} ${name} (${q}) service`, ...strip(service), matches, note: `${statements} statements` });
        rows.push({ name: `${database}: ${type} ${name} bare pg`, ...strip(bareRun), note: `ratio ${(service.rps / bareRun.rps).toFixed(2)} (rounds ${perRound})` });
        console.log(`${rows[rows.length - 2].name}: p50 ${service.p50.toFixed(1)} ms p99 ${service.p99.toFixed(1)} ms ${service.rps.toFixed(0)}/s, ${matches} matches | bare p50 ${bareRun.p50.toFixed(1)} p99 ${bareRun.p99.toFixed(1)} ${bareRun.rps.toFixed(0)}/s, ratio ${(service.rps / bareRun.rps).toFixed(2)} (rounds ${perRound}), load ${os.loadavg()[0].toFixed(1)}`);
      }
    } finally {
      await bare.end();
    }
    const sizes = await pool.query<{ name: string; size: string }>(`
      SELECT c.relname AS name, pg_size_pretty(pg_relation_size(c.oid)) AS size FROM pg_class c
       WHERE c.relname IN ('posts', 'posts_search_gin', 'posts_tags_gin', 'comments_search_gin', 'posts_tag_uses_idx', 'posts_pkey')
      UNION ALL SELECT 'posts.search_vector (column)', pg_size_pretty(sum(pg_column_size(search_vector))::bigint) FROM posts`);
    console.log(`${database} sizes (${posts} posts): ${sizes.rows.map((r) => `${r.name} ${r.size}`).join(', ')}`);
    rows.push({ name: `${database} sizes`, p50: 0, p99: 0, rps: 0, note: sizes.rows.map((r) => `${r.name} ${r.size}`).join(', ') });
  } finally {
    await server.stop();
    if (database !== 'embedded') await fs.rm(dataDir, { recursive: true, force: true });
  }
  return rows;
}

/**
 * posts.create with and without the search columns, on the bench database itself: "without" drops the generated
 * column (instant) and disables the two tag triggers; "with" puts them back (adding the column back rewrites the
 * table, so this runs last, and only with --writes on a database you can spare that time on).
 */
async function writeCost(users: Awaited<ReturnType<typeof loadAuthUsers>>, baseUrl: string): Promise<Row[]> {
  const { operations } = await import('../src/registry.js');
  const { runOperation } = await import('../src/core/run-operation.js');
  const op = operations.find((o) => o.name === 'posts.create')!;
  const runner = { rateLimits: platform.rateLimits, onUnexpectedError: (err: unknown) => console.error('[bench] create failed', err) };
  const content = (i: number) => `Lost a blue bicycle near the bakery on ${i % 28} Baker Street this morning; any sightings welcome. Reward offered, call me. #lostandfound #bikes ${i}`.slice(0, 200);
  const create = async (i: number) => {
    const r = await runOperation(runner, op, { post_type: 'text', content: content(i) }, {
      transport: 'http',
      requestId: crypto.randomUUID(),
      user: users[i % users.length],
      authError: false,
      ip: '10.0.0.2',
      userAgent: 'bench',
      baseUrl,
      cookies: {},
    });
    if (r.status !== 201) throw new Error(`create answered ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
  };
  const pool = platform.database.pool;
  const migration = await fs.readFile(path.join(ROOT, 'src/models/migrations/0029_search.sql'), 'utf8');
  const expr = /ALTER TABLE posts ADD COLUMN search_vector tsvector GENERATED ALWAYS AS \(([\s\S]*?)\) STORED;/.exec(migration)![1];
  // The tag uses that trending reads (migration 0035; 0029's post_tag_uses table and its trigger before).
  const tagUses = /CREATE INDEX posts_tag_uses_idx [\s\S]*?;/.exec(await fs.readFile(path.join(ROOT, 'src/models/migrations/0035_tag_uses_index.sql'), 'utf8'))![0];
  const without = async () => {
    await pool.query('DROP INDEX IF EXISTS posts_search_gin');
    await pool.query('ALTER TABLE posts DROP COLUMN search_vector');
    await pool.query('ALTER TABLE posts DISABLE TRIGGER posts_set_tags');
    await pool.query('DROP INDEX IF EXISTS posts_tag_uses_idx');
  };
  const withCols = async () => {
    await pool.query(`ALTER TABLE posts ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (${expr}) STORED`);
    await pool.query('CREATE INDEX posts_search_gin ON posts USING gin (search_vector)');
    await pool.query('ALTER TABLE posts ENABLE TRIGGER posts_set_tags');
    await pool.query(tagUses);
    await pool.query('VACUUM ANALYZE posts');
  };
  const runs: { with: Array<Awaited<ReturnType<typeof closedLoop>>>; without: Array<Awaited<ReturnType<typeof closedLoop>>> } = { with: [], without: [] };
  for (let round = 0; round < 2; round++) {
    runs.with.push(await closedLoop(create));
    await without();
    try {
      await pool.query('VACUUM ANALYZE posts');
      runs.without.push(await closedLoop(create));
    } finally {
      await withCols();
    }
  }
  const sum = (xs: Array<{ rps: number }>) => xs.reduce((a, x) => a + x.rps, 0) / xs.length;
  const ratio = sum(runs.with) / sum(runs.without);
  const out: Row[] = [
    { name: 'writes: posts.create with search columns', p50: runs.with[1].p50, p99: runs.with[1].p99, rps: sum(runs.with), note: `rounds ${runs.with.map((r) => r.rps.toFixed(0)).join(', ')}/s` },
    { name: 'writes: posts.create without', p50: runs.without[1].p50, p99: runs.without[1].p99, rps: sum(runs.without), note: `rounds ${runs.without.map((r) => r.rps.toFixed(0)).join(', ')}/s; ratio ${ratio.toFixed(2)}` },
  ];
  console.log(`posts.create with ${out[0].rps.toFixed(0)}/s (${out[0].note}; p50 ${out[0].p50.toFixed(1)} ms), without ${out[1].rps.toFixed(0)}/s (${out[1].note}; p50 ${out[1].p50.toFixed(1)} ms): ratio ${ratio.toFixed(2)}`);
  return out;
}

export async function runSearchBench(args: string[]): Promise<void> {
  const phases = args.find((a) => a.startsWith('--database='))?.split('=')[1];
  for (const database of phases ? [phases] : ['server', 'embedded', 'writes']) {
    const res = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/search.ts'), `--database=${database}`, ...args.filter((a) => !a.startsWith('--database='))], { stdio: 'inherit', cwd: ROOT });
    if (res.status !== 0) throw new Error(`search bench (${database}) exited ${res.status}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  {
    const database = (flag('database') ?? 'server') as 'server' | 'embedded' | 'writes';
    const rows = await runPhase(database);
    const file = path.join(ROOT, 'bench/results', `search-${database}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, JSON.stringify({ case: 'search', database, date: new Date().toISOString(), machine: { cpus: os.cpus().length, load: os.loadavg() }, rows }, null, 2) + '\n');
    console.log(`results: ${path.relative(ROOT, file)}`);
  }
  process.exit(0);
}
