import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import http from 'node:http';
import crypto from 'node:crypto';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createDatabaseIfMissing } from './lib/harness.js';
import { percentile } from './lib/stats.js';
import { serviceEnv, startScript } from './media-start.js';
import { aWebPushReceiver, type WebPushReceiver } from '../tests/helpers/webpush-receiver.js';

/**
 * `npm run bench -- push` (issue 35). The service in a process of its own (`npm start`'s command); a Web Push service
 * stand-in in this process (tests/helpers/webpush-receiver.ts) that verifies the VAPID token and decrypts with
 * `http_ece` (every push in part 1, one in `--verify-every` in part 2, so that its own CPU stays small).
 *
 * 1. like (embedded database, DATABASE_URL unset): `--likes` likes (default 60), one every 200 ms, each by another
 *    neighbour on the author's post; the author has one Web Push device. Figure: like sent → push request at the
 *    stand-in, p50 and p99. The commit happens between the like's sending and its answer, so this bounds
 *    commit → push-service request from above (it counts the like's own time too).
 * 2. flood (PostgreSQL, BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/hl_push_bench): a community of
 *    `--members` members (default 10,000; written with SQL, each with one Web Push device at the stand-in), one post to
 *    it. Figures: post sent → last push delivered; the post's own answer; the answers of posts to a small community
 *    made every 100 ms before the flood (quiet) and during it, p50/p99; /health every 20 ms during the flood, p50/p99;
 *    pushes per second (members / (post sent → last push)) against a bare script (bench/push-bare.ts, in a process of
 *    its own) that encrypts and sends the same pushes with web-push alone, run right after, and their ratio.
 */
export interface PushBenchOptions {
  likes: number;
  members: number;
  verifyEvery: number;
  parts: Array<'like' | 'flood'>;
}

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/hl_push_bench';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN };
};

async function startService(extraEnv: Record<string, string>): Promise<{ url: string; child: ChildProcess; dataDir: string }> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-bench-push-'));
  const { env: scriptEnv, nodeFlags } = await startScript();
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const env = serviceEnv(scriptEnv);
  for (const name of ['REDIS_URL', 'NODE_OPTIONS', 'TEST_DATABASE_URL', 'DATABASE_URL']) delete env[name];
  Object.assign(env, { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production', RATE_LIMITS: 'off', PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true', ...extraEnv });
  // BENCH_SERVICE_NODE_FLAGS: more flags for the service's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const extraFlags = (process.env.BENCH_SERVICE_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeFlags, ...extraFlags, '--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => { if (code !== 0 && signal !== 'SIGTERM') console.error(`the service exited: code ${code}, signal ${signal}`); });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 300_000;
  while (!(await fetch(`${url}/health`).then((r) => r.status === 200, () => false))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('the service did not start');
    await sleep(100);
  }
  return { url, child, dataDir };
}

async function stopService(service: { child: ChildProcess; dataDir: string }): Promise<void> {
  service.child.kill('SIGTERM');
  await new Promise((resolve) => service.child.once('exit', resolve));
  await fs.rm(service.dataDir, { recursive: true, force: true });
}

async function rest(base: string, method: string, p: string, token?: string, body?: unknown): Promise<{ status: number; body: any; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await res.json().catch(() => null);
  return { status: res.status, body: parsed, ms: performance.now() - started };
}

async function must(base: string, method: string, p: string, token: string | undefined, body: unknown, ...statuses: number[]): Promise<any> {
  const res = await rest(base, method, p, token, body);
  if (!statuses.includes(res.status)) throw new Error(`${method} ${p} answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function aUser(base: string, city?: string): Promise<{ id: string; token: string }> {
  const username = `b${crypto.randomBytes(6).toString('hex')}`;
  const body = await must(base, 'POST', '/api/auth/register/', undefined, { email: `${username}@example.test`, username, display_name: username, password: 'correct-horse-battery' }, 201);
  if (city) await must(base, 'POST', '/api/users/update-location/', body.access_token, { country: 'Benchland', city }, 200);
  return { id: body.user.id, token: body.access_token };
}

export interface LikeResult {
  likes: number;
  sentToPush: ReturnType<typeof stats>;
  answeredToPush: ReturnType<typeof stats>;
  verified: number;
}

async function runLike(opts: PushBenchOptions): Promise<LikeResult> {
  const service = await startService({});
  let push: WebPushReceiver | null = null;
  try {
    const key = (await must(service.url, 'GET', '/api/push/vapid-public-key/', undefined, undefined, 200)).public_key;
    push = await aWebPushReceiver(key);
    const city = `Likeville ${crypto.randomBytes(3).toString('hex')}`;
    const author = await aUser(service.url, city);
    const sub = push.subscribe();
    await must(service.url, 'POST', '/api/push/subscriptions/', author.token, { kind: 'webpush', ...sub }, 201);
    const post = await must(service.url, 'POST', '/api/feed/posts/', author.token, { post_type: 'text', content: 'Like me' }, 201);
    const likers = [];
    for (let i = 0; i < opts.likes; i++) likers.push(await aUser(service.url, city));
    const sentToPush: number[] = [];
    const answeredToPush: number[] = [];
    for (const liker of likers) {
      const before = push.received.length;
      const sent = performance.now();
      const sentAt = Date.now();
      await must(service.url, 'POST', `/api/feed/posts/${post.id}/like/`, liker.token, undefined, 200, 201);
      const answered = Date.now();
      const [got] = (await push.waitFor(before + 1, 10_000)).slice(before);
      sentToPush.push(got!.at - sentAt);
      answeredToPush.push(got!.at - answered);
      void sent;
      await sleep(200);
    }
    return { likes: opts.likes, sentToPush: stats(sentToPush), answeredToPush: stats(answeredToPush), verified: push.received.filter((p) => p.vapid.ok && p.payload?.notification_type === 'post_like').length };
  } finally {
    await push?.close();
    await stopService(service);
  }
}

export interface FloodResult {
  members: number;
  delivered: number;
  checked: number;
  checkedOk: number;
  postAnswerMs: number;
  postToLastPushMs: number;
  postToFirstPushMs: number;
  quietPosts: ReturnType<typeof stats>;
  floodPosts: ReturnType<typeof stats>;
  /** The three slowest of those answers, and when each was sent (ms after the community post). */
  slowestFloodPosts: Array<{ atMs: number; ms: number }>;
  health: ReturnType<typeof stats>;
  servicePushesPerSecond: number;
  /** web-push alone, as it is used by default (one VAPID token signed per push). */
  bare: { ms: number; sent: number; failed: number; pushesPerSecond: number };
  ratio: number;
  /** web-push alone with one VAPID token per origin, as the service does. */
  bareCached: { ms: number; sent: number; failed: number; pushesPerSecond: number };
  ratioCached: number;
}

async function runFlood(opts: PushBenchOptions): Promise<FloodResult> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  await createDatabaseIfMissing(databaseUrl);
  // Pushes left queued by an earlier run that died (to a stand-in long gone) would retry through this one: cleared.
  const cleaner = new pg.Client({ connectionString: databaseUrl });
  await cleaner.connect();
  await cleaner.query(`DELETE FROM outbox WHERE kind = 'push.send'`).catch(() => undefined);
  await cleaner.end();
  const service = await startService({ DATABASE_URL: databaseUrl });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  let push: WebPushReceiver | null = null;
  try {
    const key = (await must(service.url, 'GET', '/api/push/vapid-public-key/', undefined, undefined, 200)).public_key;
    push = await aWebPushReceiver(key, { verifyEvery: opts.verifyEvery });
    const owner = await aUser(service.url);
    const categories = await must(service.url, 'GET', '/api/communities/categories/', owner.token, undefined, 200);
    const club = await must(service.url, 'POST', '/api/communities/communities/', owner.token, { name: `Flood ${crypto.randomBytes(3).toString('hex')}`, description: 'Everyone', category: categories[0].id }, 201);
    const small = await must(service.url, 'POST', '/api/communities/communities/', owner.token, { name: `Quiet ${crypto.randomBytes(3).toString('hex')}`, description: 'Nobody', category: categories[0].id }, 201);
    const subs = Array.from({ length: opts.members }, () => push!.subscribe());
    const tag = crypto.randomBytes(4).toString('hex');
    await db.query(
      `WITH u AS (
         INSERT INTO users (email, username, display_name, password_hash, referral_code)
         SELECT 'f${tag}' || i || '@example.test', 'f${tag}' || i, 'Member ' || i, '!', substr(md5('${tag}' || i), 1, 12)
         FROM generate_series(1, $2::int) i RETURNING id, username),
       m AS (INSERT INTO community_members (community_id, user_id) SELECT $1::uuid, id FROM u RETURNING user_id)
       INSERT INTO push_devices (user_id, kind, address, p256dh, auth)
       SELECT u.id, 'webpush', d.endpoint, d.p256dh, d.auth
       FROM u JOIN unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS d(endpoint, p256dh, auth, i) ON u.username = 'f${tag}' || d.i`,
      [club.id, opts.members, subs.map((s) => s.endpoint), subs.map((s) => s.keys.p256dh), subs.map((s) => s.keys.auth)],
    );

    // Posts to the small community, every 100 ms: quiet first (2 s), then through the flood.
    const postTo = async (communityId: string) => (await rest(service.url, 'POST', '/api/feed/posts/', owner.token, { post_type: 'text', content: 'A quiet note', community_id: communityId })).ms;
    const quietPosts: number[] = [];
    for (let i = 0; i < 20; i++) {
      quietPosts.push(await postTo(small.id));
      await sleep(100);
    }

    let flooding = true;
    const health: number[] = [];
    const floodPosts: number[] = [];
    const floodPostTimes: Array<{ atMs: number; ms: number }> = [];
    const healthLoop = (async () => {
      while (flooding) {
        health.push((await rest(service.url, 'GET', '/health')).ms);
        await sleep(20);
      }
    })();
    const postsLoop = (async () => {
      while (flooding) {
        const at = Date.now();
        const ms = await postTo(small.id);
        floodPosts.push(ms);
        floodPostTimes.push({ atMs: at, ms });
        await sleep(100);
      }
    })();
    const sentAt = Date.now();
    const big = await rest(service.url, 'POST', '/api/feed/posts/', owner.token, { post_type: 'text', content: 'Street party on Saturday!', community_id: club.id });
    if (big.status !== 201) throw new Error(`the community post answered ${big.status}`);
    await push.waitFor(opts.members, 300_000);
    const last = Math.max(...push.received.map((p) => p.at));
    const first = Math.min(...push.received.map((p) => p.at));
    flooding = false;
    await Promise.all([healthLoop, postsLoop]);
    await sleep(1500);
    const delivered = push.received.length;
    const checked = push.received.filter((p) => p.vapid.problem !== 'not checked');
    const checkedOk = checked.filter((p) => p.vapid.ok && p.payload?.notification_type === 'new_post' && p.payload.target_id === big.body.id).length;
    const serviceRate = opts.members / ((last - sentAt) / 1000);

    // The bare baseline, in a process of its own, to the same subscriptions with the same payloads.
    const sample = push.received.find((p) => p.payload)?.payload ?? {};
    const vapid = JSON.parse(await fs.readFile(path.join(service.dataDir, 'vapid-keys.json'), 'utf8'));
    const jobFile = path.join(service.dataDir, 'bare-job.json');
    await fs.writeFile(jobFile, JSON.stringify({ vapid: { subject: 'mailto:push@hyperlocal.invalid', ...vapid }, concurrency: 32, pushes: subs.map((s, i) => ({ endpoint: s.endpoint, keys: s.keys, payload: { ...sample, notification_id: crypto.randomUUID(), unread_count: 1 + (i % 3) }, topic: 'bench' })) }));
    const runBare = async (flags: string[]) => {
      const out = await new Promise<string>((resolve, reject) =>
        execFile(process.execPath, ['--import', 'tsx', path.join('bench', 'push-bare.ts'), jobFile, ...flags], { maxBuffer: 1 << 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
      );
      const run = JSON.parse(out.trim().split('\n').pop()!) as { ms: number; sent: number; failed: number };
      return { ...run, pushesPerSecond: run.sent / (run.ms / 1000) };
    };
    const bare = await runBare([]);
    const bareCached = await runBare(['--cached-vapid']);
    const bareRate = bare.pushesPerSecond;
    return {
      members: opts.members,
      delivered,
      checked: checked.length,
      checkedOk,
      postAnswerMs: big.ms,
      postToLastPushMs: last - sentAt,
      postToFirstPushMs: first - sentAt,
      quietPosts: stats(quietPosts),
      floodPosts: stats(floodPosts),
      slowestFloodPosts: floodPostTimes.sort((a, b) => b.ms - a.ms).slice(0, 3).map((p) => ({ atMs: p.atMs - sentAt, ms: p.ms })),
      health: stats(health),
      servicePushesPerSecond: serviceRate,
      bare,
      ratio: serviceRate / bareRate,
      bareCached,
      ratioCached: serviceRate / bareCached.pushesPerSecond,
    };
  } finally {
    await db.end();
    await push?.close();
    await stopService(service);
  }
}

export async function runPush(opts: PushBenchOptions): Promise<{ like?: LikeResult; flood?: FloodResult }> {
  const out: { like?: LikeResult; flood?: FloodResult } = {};
  if (opts.parts.includes('like')) out.like = await runLike(opts);
  if (opts.parts.includes('flood')) out.flood = await runFlood(opts);
  return out;
}

const f = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : '–');

export function formatPush(result: { like?: LikeResult; flood?: FloodResult }): string {
  const lines = ['push (issue 35)'];
  const l = result.like;
  if (l) {
    lines.push(`  like, embedded database: ${l.likes} likes, ${l.verified} pushes VAPID-verified and decrypted`);
    lines.push(`    like sent → push request:      p50 ${f(l.sentToPush.p50)} ms, p99 ${f(l.sentToPush.p99)} ms, max ${f(l.sentToPush.max)} ms`);
    lines.push(`    like answered → push request:  p50 ${f(l.answeredToPush.p50)} ms, p99 ${f(l.answeredToPush.p99)} ms`);
  }
  const fl = result.flood;
  if (fl) {
    lines.push(`  community post to ${fl.members} members with one Web Push device each, PostgreSQL: ${fl.delivered} delivered, ${fl.checkedOk}/${fl.checked} sampled pushes verified and decrypted`);
    lines.push(`    post sent → first push ${f(fl.postToFirstPushMs)} ms, → last push ${f(fl.postToLastPushMs)} ms; the post's answer ${f(fl.postAnswerMs)} ms`);
    lines.push(`    other posts' answers: quiet p50 ${f(fl.quietPosts.p50)} / p99 ${f(fl.quietPosts.p99)} ms (n ${fl.quietPosts.n}); during the flood p50 ${f(fl.floodPosts.p50)} / p99 ${f(fl.floodPosts.p99)} ms (n ${fl.floodPosts.n}); slowest ${fl.slowestFloodPosts.map((p) => `${f(p.ms)} ms at +${(p.atMs / 1000).toFixed(1)} s`).join(', ')}`);
    lines.push(`    /health during the flood: p50 ${f(fl.health.p50)} ms, p99 ${f(fl.health.p99)} ms, max ${f(fl.health.max)} ms (n ${fl.health.n})`);
    lines.push(`    pushes/s: service ${f(fl.servicePushesPerSecond)}; bare web-push ${f(fl.bare.pushesPerSecond)} (${fl.bare.sent} sent in ${f(fl.bare.ms)} ms), ratio ${fl.ratio.toFixed(2)}; bare web-push with one VAPID token per origin as the service ${f(fl.bareCached.pushesPerSecond)} (${f(fl.bareCached.ms)} ms), ratio ${fl.ratioCached.toFixed(2)}`);
  }
  return lines.join('\n');
}
