import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The service as `npm start` runs it (node --import tsx src/main.ts), a real process, leader of a process group of
 * its own, so that a test can `kill -9` all of it (the embedded database's process included) and start it again.
 * Not the test run's Redis or jest's node flags; the database is the caller's choice: `DATABASE_URL` in `env`, or
 * the embedded one in `DATA_DIR`.
 */
export interface ServiceProcess {
  child: ChildProcess;
  /** The process group (its main process's pid). */
  group: number;
  url: string;
  /** What it printed so far, for failure messages. */
  output: () => string;
  exited: Promise<number | null>;
}

export const SERVICE_START_MS = 90_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const full: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', RATE_LIMITS: 'off', LOG_LEVEL: 'warn', WATCHDOG_BLOCKED_MS: '0' };
  for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'REDIS_URL', 'NODE_OPTIONS', 'TEST_EMBEDDED', 'TEST_DATABASE_POOL_MAX']) delete full[name];
  Object.assign(full, env);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { detached: true, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, group: child.pid!, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}

/** Resolves when /health answers 200; rejects with the service's output if it exits first or takes too long. */
export async function serviceReady(service: ServiceProcess): Promise<void> {
  let gone = false;
  void service.exited.then(() => (gone = true));
  const deadline = Date.now() + SERVICE_START_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the service exited before it was ready:\n${service.output()}`);
    if (await fetch(`${service.url}/health`).then((res) => res.status === 200, () => false)) return;
    await sleep(100);
  }
  throw new Error(`the service was not ready in time:\n${service.output()}`);
}

/** A signal to the whole process group (SIGKILL: the process and every child, as a supervisor's kill -9). */
export function killGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // already gone
  }
}

/** JSON over REST to a service process. */
export async function restJson(service: ServiceProcess, method: string, path: string, init: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}
