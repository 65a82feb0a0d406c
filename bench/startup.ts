import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, summarize, type Summary } from './lib/stats.js';

/**
 * `npm start` as a new user runs it (npm, then `node --initial-old-space-size=128 --import tsx src/main.ts`) with no
 * DATABASE_URL, so the embedded database starts in DATA_DIR. Cold = a new DATA_DIR (PostGIS is installed, migrations
 * run); warm = the same DATA_DIR again. The time is from spawn to the first 200 from GET /health, so it includes npm
 * and tsx start-up, which the service's own `startupMs` log field does not; both are reported.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 3;
const TIMEOUT_MS = 180_000;

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitForHealth(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode} before answering /health`);
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false);
    if (ok) return;
    await sleep(25);
  }
  throw new Error(`no 200 from /health within ${TIMEOUT_MS} ms`);
}

/** Another process group's end cannot be awaited as an event: poll it. */
async function groupGone(pgid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await sleep(10);
  }
}

interface StartTiming {
  toHealthyMs: number;
  serviceStartupMs: number | null;
  shutdownMs: number;
}

async function startOnce(dataDir: string): Promise<StartTiming> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_ENV: 'production' };
  // A developer's server database or Redis would make this a different start-up from a new user's.
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const started = performance.now();
  // detached: its own process group, so SIGTERM reaches node behind npm, and nothing else.
  const child = spawn('npm', ['start', '--silent'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForHealth(port, child);
  } catch (err) {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    throw new Error(`${(err as Error).message}\n${output.slice(-2000)}`);
  }
  const toHealthyMs = performance.now() - started;
  const stopping = performance.now();
  process.kill(-child.pid!, 'SIGTERM');
  const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 30_000);
  await exited;
  // npm may exit before its children: wait for the whole group (tsx, the app, the database process), or the
  // next start finds DATA_DIR still locked and the clean-up races the database's last writes.
  await groupGone(child.pid!);
  clearTimeout(killer);
  const shutdownMs = performance.now() - stopping;
  // main.ts logs `startupMs` with the "listening" line: the service's own view, without npm and tsx.
  const listening = output.split('\n').find((line) => line.includes('"startupMs"'));
  const serviceStartupMs = listening ? (JSON.parse(listening) as { startupMs: number }).startupMs : null;
  return { toHealthyMs, serviceStartupMs, shutdownMs };
}

/** Spawn to exit of `node --import tsx` running an empty script: the tooling's share, and the unit for the ratios. */
async function toolingOnce(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', ''], { cwd: ROOT, stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return performance.now() - started;
}

export async function runStartup(): Promise<Summary[]> {
  const tooling: number[] = [];
  for (let i = 0; i < RUNS; i++) tooling.push(await toolingOnce());
  const unit = median(tooling);
  const cold: StartTiming[] = [];
  const warm: StartTiming[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-startup-'));
    try {
      cold.push(await startOnce(dataDir));
      warm.push(await startOnce(dataDir));
      console.log(`[startup] run ${i + 1}: cold ${cold[i].toHealthyMs.toFixed(0)} ms, warm ${warm[i].toHealthyMs.toFixed(0)} ms`);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  }
  const service = (runs: StartTiming[]) => runs.map((r) => r.serviceStartupMs).filter((v): v is number => v !== null);
  return [
    summarize('baseline: node --import tsx, empty script', tooling, unit),
    summarize('cold start: spawn to /health 200', cold.map((r) => r.toHealthyMs), unit, 'new DATA_DIR: PGlite init, PostGIS install, migrations'),
    summarize('  service startupMs (cold)', service(cold), null),
    summarize('warm start: spawn to /health 200', warm.map((r) => r.toHealthyMs), unit, 'same DATA_DIR again'),
    summarize('  service startupMs (warm)', service(warm), null),
    summarize('shutdown: SIGTERM to exit', [...cold, ...warm].map((r) => r.shutdownMs), null),
  ];
}
