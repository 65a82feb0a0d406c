// @run-alone: it kills the service and asserts its restart within 500 ms (tests/runner/run-alone.mjs).
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import fs from 'node:fs/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { unique } from '../helpers/test-app.js';
import { processIdentity } from '../../src/platform/process-identity.js';

/**
 * What an operator's supervisor does to `npm start` on the embedded database: `kill -9` of the service's whole
 * process group while it writes, and a start again at once on the same DATA_DIR. The killed database process is
 * a zombie until init reaps it (on some hosts never), and its pid may be reused by anything later: neither may
 * hold the DATA_DIR lock. Real processes, started as `npm start` starts them, each in a process group of its own.
 */
const SERVICE_START_MS = 90_000;

let dataDir: string;
/** Every process group this file started, killed at the end whatever happened. */
const groups = new Set<number>();

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-crash-'));
});
afterAll(async () => {
  for (const group of groups) killGroup(group, 'SIGKILL');
  await fs.rm(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

interface Service {
  child: ChildProcess;
  /** The service's process group (its main process's pid). */
  group: number;
  url: string;
  /** What it printed so far, for the failure message. */
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `npm start`'s command (node --import tsx src/main.ts; its garbage-collection flag plays no part in a crash) with the
 * embedded database in `dataDir`, leader of its own process group. `keepZombies`: under tests/helpers/zombie-keeper.py,
 * so that its processes stay zombies once killed.
 */
async function startService(opts: { keepZombies?: boolean } = {}): Promise<Service> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', RATE_LIMITS: 'off', LOG_LEVEL: 'warn' };
  // Not the test run's database, Redis or jest's node flags: a service of its own, as on a fresh machine.
  for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'REDIS_URL', 'NODE_OPTIONS', 'TEST_EMBEDDED', 'TEST_DATABASE_POOL_MAX']) delete env[name];
  const command = [process.execPath, '--import', 'tsx', 'src/main.ts'];
  const child = opts.keepZombies
    ? spawn('python3', ['tests/helpers/zombie-keeper.py', ...command], { detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(command[0], command.slice(1), { detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
  groups.add(child.pid!);
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // The keeper's first line is the service's pid.
  while (opts.keepZombies && !out.includes('\n')) await sleep(20);
  const group = opts.keepZombies ? Number.parseInt(out, 10) : child.pid!;
  groups.add(group);
  return { child, group, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}

/** The pid in the database's lock file (JSON naming its holder, or a bare pid). */
async function lockHolderPid(): Promise<number> {
  const recorded = JSON.parse(await fs.readFile(path.join(dataDir, 'pglite.lock'), 'utf8')) as number | { pid: number };
  return typeof recorded === 'number' ? recorded : recorded.pid;
}

/** Field 3 of /proc/<pid>/stat (Z: a zombie), or null once the pid is gone. */
async function processState(pid: number): Promise<string | null> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat && stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

/** Resolves when /health answers 200; rejects with the service's output if it exits first. */
async function ready(service: Service): Promise<void> {
  let gone = false;
  void service.exited.then(() => (gone = true));
  const deadline = Date.now() + SERVICE_START_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the service exited before it was ready:\n${service.output()}`);
    const ok = await fetch(`${service.url}/health`).then((res) => res.status === 200, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the service was not ready in time:\n${service.output()}`);
}

function killGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // already gone
  }
}

async function json(url: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** A user living somewhere, so that it may post. */
async function anAuthor(service: Service): Promise<string> {
  const username = unique('crash');
  const registered = await json(`${service.url}/api/auth/register/`, {
    method: 'POST',
    body: { email: `${username}@example.test`, username, display_name: 'Crash', password: 'correct-horse-battery' },
  });
  expect(registered.status).toBe(201);
  const token = registered.body.access_token as string;
  const moved = await json(`${service.url}/api/users/update-location/`, { method: 'POST', token, body: { country: 'Crashland', city: unique('City ') } });
  expect(moved.status).toBe(200);
  return token;
}

/** Writers posting back to back until `stop()`; `acknowledged` holds the id of every post answered 201. */
function writeContinuously(service: Service, token: string, writers = 4) {
  const acknowledged: string[] = [];
  let stopped = false;
  const loops = Array.from({ length: writers }, async (_, w) => {
    for (let n = 0; !stopped; n++) {
      try {
        const res = await json(`${service.url}/api/feed/posts/`, { method: 'POST', token, body: { post_type: 'text', content: `writer ${w} post ${n}` } });
        if (res.status === 201) acknowledged.push(res.body.id);
      } catch {
        return; // the service is gone: a post without an answer may or may not be there
      }
    }
  });
  return { acknowledged, stop: () => ((stopped = true), Promise.all(loops)) };
}

async function missingPosts(service: Service, ids: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (let i = 0; i < ids.length; i += 16) {
    const batch = ids.slice(i, i + 16);
    const answers = await Promise.all(batch.map((id) => json(`${service.url}/api/feed/posts/${id}/`)));
    answers.forEach((res, k) => res.status !== 200 && missing.push(`${batch[k]} (${res.status})`));
  }
  return missing;
}

describe('a restart right after kill -9', () => {
  let service: Service;

  test('when the whole service is SIGKILLed under writes and started again at once, then it starts and every acknowledged post is there', async () => {
    const first = await startService({ keepZombies: true });
    await ready(first);
    const databasePid = await lockHolderPid();
    const token = await anAuthor(first);
    const writes = writeContinuously(first, token);
    while (writes.acknowledged.length < 100) await sleep(50);

    killGroup(first.group, 'SIGKILL');
    const killedAt = Date.now();
    service = await startService();
    expect(Date.now() - killedAt).toBeLessThan(500);
    const acknowledged = [...writes.acknowledged];
    await writes.stop();

    await ready(service);
    // The new service started while the killed database process was still a zombie holding its pid.
    expect(await processState(databasePid)).toBe('Z');
    expect(await missingPosts(service, acknowledged)).toEqual([]);
    killGroup(first.child.pid!, 'SIGKILL');
  }, SERVICE_START_MS * 3);

  test('when a lock file names a live unrelated process (a reused pid), then the start is not blocked, and a running service still blocks a second one', async () => {
    killGroup(service.group, 'SIGTERM');
    expect(await service.exited).toBe(0);
    const unrelated = spawn('sleep', ['120'], { stdio: 'ignore' });
    try {
      // The database's lock as a holder that died long ago wrote it, its pid now carried by `sleep`.
      await fs.writeFile(path.join(dataDir, 'pglite.lock'), JSON.stringify({ ...processIdentity(unrelated.pid!), startTime: '1' }));
      service = await startService();
      await ready(service);

      const second = await startService();
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain('pglite.lock is held by process');
      // The refused start left the running one alone.
      expect((await fetch(`${service.url}/health`)).status).toBe(200);
    } finally {
      unrelated.kill('SIGKILL');
      killGroup(service.group, 'SIGTERM');
      await service.exited;
    }
  }, SERVICE_START_MS * 3);
});
