import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort, waitForHealth } from './startup.js';
import { formatTable, summarize, type Summary } from './lib/stats.js';

/**
 * Throughput, latency and memory of the service on the embedded database, as `npm start` runs it:
 * the service is spawned (`node --import tsx/esm src/main.ts`, no DATABASE_URL, a new DATA_DIR), 40 users
 * are placed around one caller, the service is restarted on the same DATA_DIR (a warm start), then for each request 20 keep-alive clients send it back to back for
 * DURATION_MS. Memory is the resident set (VmRSS now, VmHWM peak) of the app's process and of the
 * database's process (when the database runs in one of its own), read from /proc at the end of each run.
 *
 *   npm run bench -- embedded
 *
 * The load generator shares the machine with both processes, as any local load test does; compare runs
 * on the same machine only.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLIENTS = 20;
const DURATION_MS = 10_000;
const WARMUP_MS = 2_000;
const NEIGHBOURS = 40;

interface Memory {
  rssMb: number;
  peakMb: number;
}

function memoryOf(pid: number | null): Memory | null {
  if (!pid) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(/(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(field)) ?? '')?.[1] ?? NaN);
    return { rssMb: Math.round(kb('VmRSS:') / 1024), peakMb: Math.round(kb('VmHWM:') / 1024) };
  } catch {
    return null;
  }
}

interface Service {
  child: ChildProcess;
  port: number;
  dataDir: string;
  /** The service's "embedded database ready" log line: pid and socketDir, or port when it ran in-process on TCP. */
  readyLine: () => { pid?: number; port?: number; socketDir?: string };
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

async function startService(existingDataDir?: string): Promise<Service> {
  const port = await freePort();
  const dataDir = existingDataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-bench-embedded-')));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_ENV: 'production' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, ['--import', 'tsx/esm', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output = (output + chunk).slice(-200_000)));
  await waitForHealth(port, child);
  // Read once now: request logs soon push it out of the kept output.
  const line = output.split('\n').find((l) => l.includes('embedded database ready'));
  const ready = line ? (JSON.parse(line) as { pid?: number; port?: number; socketDir?: string }) : {};
  const readyLine = () => ready;
  return {
    child,
    port,
    dataDir,
    readyLine,
    stop: async ({ keepData = false } = {}) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      if (!keepData) await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function request(agent: http.Agent, port: number, method: string, urlPath: string, token?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        headers: {
          accept: 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A caller at a point with NEIGHBOURS users within a kilometre, all in one location. Returns its token. */
async function seed(service: Service): Promise<string> {
  const agent = new http.Agent({ keepAlive: true });
  const username = `bench_${Date.now()}`;
  const reg = await request(agent, service.port, 'POST', '/api/auth/register/', undefined, {
    email: `${username}@example.test`,
    username,
    display_name: 'Bench caller',
    password: 'correct-horse-battery',
  });
  if (reg.status !== 201) throw new Error(`register answered ${reg.status}: ${JSON.stringify(reg.body)}`);
  const token = reg.body.access_token as string;
  const moved = await request(agent, service.port, 'POST', '/api/users/update-location/', token, { country: 'Benchland', city: 'Benchville', latitude: 52.52, longitude: 13.405 });
  if (moved.status >= 400) throw new Error(`update-location answered ${moved.status}: ${JSON.stringify(moved.body)}`);
  agent.destroy();
  // The neighbours go straight into the table: registering 40 users over HTTP would hit its rate limit.
  const pool = new pg.Pool({ connectionString: connectionStringOf(service), max: 1 });
  try {
    await pool.query(
      `INSERT INTO users (email, username, display_name, password_hash, referral_code, latitude, longitude, point, location_id)
       SELECT 'n' || g || '_' || $2 || '@example.test', 'n' || g || '_' || $2, 'Neighbour ' || g, 'x', md5(random()::text),
              52.52 + dlat, 13.405 + dlon, ST_SetSRID(ST_MakePoint(13.405 + dlon, 52.52 + dlat), 4326)::geography,
              (SELECT location_id FROM users WHERE username = $2)
       FROM generate_series(1, $1::int) g, LATERAL (SELECT (random() - 0.5) / 100 AS dlat, (random() - 0.5) / 100 AS dlon) d`,
      [NEIGHBOURS, username],
    );
  } finally {
    await pool.end();
  }
  return token;
}

/** The unix socket (database in its own process) or the TCP port (in-process, before), from the service's log. */
function connectionStringOf(service: Service): string {
  const { port, socketDir } = service.readyLine();
  if (socketDir) return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`;
  if (port) return `postgres://postgres@127.0.0.1:${port}/postgres`;
  throw new Error('no "embedded database ready" line in the service log');
}

async function load(port: number, urlPath: string, token: string, durationMs: number): Promise<{ latencies: number[]; errors: number; seconds: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const until = started + durationMs;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        const res = await request(agent, port, 'GET', urlPath, token).catch(() => ({ status: 0, body: null }));
        if (res.status === 200) latencies.push(performance.now() - t);
        else errors++;
      }
    }),
  );
  agent.destroy();
  return { latencies, errors, seconds: (performance.now() - started) / 1000 };
}

export async function runEmbedded(): Promise<Summary[]> {
  // Seeded on a cold start, measured on a warm one: a new data dir's first start also runs initdb and
  // installs PostGIS, which leaves the database process's WASM heap (it never shrinks) much larger.
  const cold = await startService();
  const token = await seed(cold);
  await cold.stop({ keepData: true });
  const service = await startService(cold.dataDir);
  const rows: Summary[] = [];
  try {
    const idle = { app: memoryOf(service.child.pid ?? null), db: memoryOf(service.readyLine().pid ?? null) };
    console.log(`[embedded] idle after seeding: app ${JSON.stringify(idle.app)} db ${JSON.stringify(idle.db)}`);
    const check = await load(service.port, `/api/users/nearby-users/?page_size=${NEIGHBOURS}`, token, 1);
    if (check.errors) throw new Error('nearby-users failed before the run');
    for (const [name, urlPath] of [
      ['GET /api/users/nearby-users/ (40 users)', `/api/users/nearby-users/?page_size=${NEIGHBOURS}`],
      ['GET /api/users/profile/', '/api/users/profile/'],
    ] as const) {
      await load(service.port, urlPath, token, WARMUP_MS);
      const run = await load(service.port, urlPath, token, DURATION_MS);
      const app = memoryOf(service.child.pid ?? null);
      const db = memoryOf(service.readyLine().pid ?? null);
      const rps = run.latencies.length / run.seconds;
      const memory = `RSS app ${app?.rssMb ?? '?'} MB (peak ${app?.peakMb ?? '?'})` + (db ? `, db ${db.rssMb} MB (peak ${db.peakMb}), sum ${(app?.rssMb ?? 0) + db.rssMb} MB` : ', db in-process');
      rows.push(summarize(name, run.latencies, null, `${rps.toFixed(0)} req/s, ${CLIENTS} clients, ${run.errors} errors; ${memory}`));
      console.log(`[embedded] ${name}: ${rps.toFixed(0)} req/s; ${memory}`);
    }
  } finally {
    await service.stop();
  }
  return rows;
}

/** `npm run bench -- embedded`: the table, printed and written to bench/results like the other cases. */
export async function reportEmbedded(writeResults: (caseName: string, rows: Summary[], extra: Record<string, unknown>) => Promise<string>): Promise<void> {
  const table = await runEmbedded();
  console.log(formatTable('embedded (npm start defaults: 20 keep-alive clients, 10 s per request)', table));
  console.log(`  results: ${await writeResults('embedded', table, {})}`);
}
