import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import crypto from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../src/platform/config.js';
import { platform } from '../../src/platform/index.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { operations } from '../../src/registry.js';
import { runOperation, type OperationRunner } from '../../src/core/run-operation.js';
import type { AuthUser, RequestContext } from '../../src/core/context.js';
import type { OperationResult } from '../../src/core/operation.js';
import { measure, median, summarize, type Summary } from './stats.js';

/**
 * The service started exactly as `npm start` starts it (platform, migrations, HTTP + Socket.IO), against
 * a dedicated benchmark database. Cases call operations in-process through runOperation, the same path
 * both transports take, and a few over real HTTP to show what the transport adds.
 */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/hyperlocal_bench';

export interface BenchArgs {
  regenerate: boolean;
  /** Overrides each case's own iteration count (quick runs: `--iterations=50`). */
  iterations: number | null;
}

export interface Bench {
  server: RunningServer;
  /** The service's own pool: the baseline and the data generators go through it too. */
  pool: pg.Pool;
  args: BenchArgs;
  /** Run an operation as the service would; throws on a 4xx/5xx so that errors are never timed as successes. */
  call(opName: string, input: Record<string, unknown>, user: AuthUser | null): Promise<OperationResult>;
  /** A REST call to the running server. */
  http(method: string, pathAndQuery: string, opts?: { token?: string; body?: unknown }): Promise<{ status: number; body: unknown }>;
  /** `SELECT 1` through the same pool: the unit the other medians are expressed in. */
  baseline(iterations?: number): Promise<Summary>;
  stop(): Promise<void>;
}

export async function createDatabaseIfMissing(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

export async function startBench(args: BenchArgs): Promise<Bench> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  await createDatabaseIfMissing(databaseUrl);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-bench-'));
  // Only what the benchmark decides: the rest of the environment (a developer's DATABASE_URL, REDIS_URL)
  // must not leak in. Without REDIS_URL the rate limits count in memory, as on a single node.
  const config = loadConfig(
    {},
    { PORT: 0, HOST: '127.0.0.1', DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'silent', NODE_ENV: 'production' },
  );
  const server = await startServer(config, { jobs: false });
  const runner: OperationRunner = {
    rateLimits: platform.rateLimits,
    onUnexpectedError: (err, op) => console.error(`[bench] ${op.name} failed:`, err),
  };

  let calls = 0;
  const context = (user: AuthUser | null): RequestContext => {
    const n = ++calls;
    return {
      transport: 'http',
      requestId: crypto.randomUUID(),
      user,
      authError: false,
      // A distinct address per call: per-IP rate limits (login: 30 a minute) must not turn the run into 429s.
      ip: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      userAgent: 'hyperlocal-bench',
      baseUrl: server.url,
      cookies: {},
    };
  };

  const call: Bench['call'] = async (opName, input, user) => {
    const op = operations.find((o) => o.name === opName);
    if (!op) throw new Error(`operation ${opName} is not in src/registry.ts`);
    const result = await runOperation(runner, op, input, context(user));
    if (result.status >= 400) throw new Error(`${opName} answered ${result.status}: ${JSON.stringify(result.body).slice(0, 300)}`);
    return result;
  };

  const http: Bench['http'] = async (method, pathAndQuery, opts = {}) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(server.url + pathAndQuery, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const body: unknown = await res.json().catch(() => null);
    if (res.status >= 400) throw new Error(`${method} ${pathAndQuery} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    return { status: res.status, body };
  };

  const pool = platform.database.pool;
  const baseline: Bench['baseline'] = async (iterations = 1000) => {
    const samples = await measure(() => pool.query('SELECT 1'), { iterations, warmup: 100 });
    return summarize('baseline: SELECT 1 (pool)', samples, median(samples));
  };

  return {
    server,
    pool,
    args,
    call,
    http,
    baseline,
    stop: async () => {
      await server.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The caller of an operation, as the auth middleware would build it from a user row. */
export async function loadAuthUsers(pool: pg.Pool, whereSql: string, params: unknown[] = []): Promise<AuthUser[]> {
  const { rows } = await pool.query<{ id: string; username: string; email: string; is_staff: boolean; is_admin: boolean; is_verified: boolean }>(
    `SELECT id, username, email, is_staff, is_admin, is_verified FROM users WHERE ${whereSql}`,
    params,
  );
  return rows.map((r) => ({ id: r.id, username: r.username, email: r.email, isStaff: r.is_staff, isAdmin: r.is_admin, isVerified: r.is_verified }));
}

/** Seeded PRNG (mulberry32): the same inputs on every run, so two runs measure the same work. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
