import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import fs from 'node:fs/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { WATCHDOG_EXIT_CODE } from '../../src/platform/watchdog.js';

/**
 * The event-loop watchdog (src/platform/watchdog.ts; docs/deployment.md, "Event-loop watchdog"), on a real service
 * started as `npm start` starts it. A test-only preload (tests/helpers/block-loop-on-signal.mjs) blocks the event
 * loop forever on SIGUSR2, as a parser stuck on a hostile file once did (issue 31): /health stops answering, and
 * SIGTERM alone would never end the process. The watchdog's thread logs it, names where the loop was stuck, and ends
 * the process with code 70 for the supervisor to restart it.
 */
const SERVICE_START_MS = 90_000;
// Short, for the test's sake, but far above any stall a loaded test machine gives a healthy node's loop.
const BLOCKED_MS = 3000;

const children = new Set<ChildProcess>();
let dataDir: string;
beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-watchdog-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await fs.rm(dataDir, { recursive: true, force: true });
});

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
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startService(): Promise<Service> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: path.join(dataDir, String(port)),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    WATCHDOG_BLOCKED_MS: String(BLOCKED_MS),
    // The test run's database when there is one (faster than an embedded one); no Redis, no jest flags.
    ...(process.env.TEST_DATABASE_URL ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}),
  };
  for (const name of ['REDIS_URL', 'NODE_OPTIONS', 'TEST_DATABASE_URL']) delete env[name];
  if (!process.env.TEST_DATABASE_URL) delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './tests/helpers/block-loop-on-signal.mjs', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}

/** Resolves when /health answers 200 and the watchdog has said it started; rejects with the output if it exits first. */
async function ready(service: Service): Promise<void> {
  let gone = false;
  void service.exited.then(() => (gone = true));
  const deadline = Date.now() + SERVICE_START_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the service exited before it was ready:\n${service.output()}`);
    const ok = await fetch(`${service.url}/health`).then((res) => res.status === 200, () => false);
    if (ok && service.output().includes('event-loop watchdog started')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the service was not ready in time:\n${service.output()}`);
}

/** Whether /health answers within `ms`. */
const healthAnswers = (service: Service, ms: number) =>
  fetch(`${service.url}/health`, { signal: AbortSignal.timeout(ms) }).then(
    () => true,
    () => false,
  );

/** The JSON log lines of the output (other lines, e.g. Node's own notices on standard error, skipped). */
const logLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; [field: string]: unknown });

test('when the event loop is blocked, then /health stops answering, the watchdog logs it with where it was stuck, and the process exits with code 70', async () => {
  const service = await startService();
  await ready(service);
  const blockedAt = Date.now();
  service.child.kill('SIGUSR2');
  expect(await healthAnswers(service, 500)).toBe(false);

  const { code, signal } = await service.exited;
  const took = Date.now() - blockedAt;
  expect({ code, signal }).toEqual({ code: WATCHDOG_EXIT_CODE, signal: null });
  // Not before the limit (less the beat that came before the block, a quarter of it), and well before anyone's
  // patience runs out (the limit, a beat, the interrupt).
  expect(took).toBeGreaterThanOrEqual(BLOCKED_MS * 0.75);
  expect(took).toBeLessThan(BLOCKED_MS + 10_000);
  const fatal = logLines(service.output()).filter((l) => l.level === 60);
  expect(fatal[0]).toMatchObject({ msg: expect.stringContaining('event loop blocked for'), exitCode: WATCHDOG_EXIT_CODE, blockedMs: expect.any(Number) });
  expect(fatal[0]!.blockedMs).toBeGreaterThanOrEqual(BLOCKED_MS);
  expect(fatal[1]).toMatchObject({ msg: 'the blocked event loop was here' });
  expect((fatal[1]!.stack as string[])[0]).toMatch(/^spinForever \(file:.*\/tests\/helpers\/block-loop-on-signal\.mjs:5\)$/);
}, 120_000);

test('when SIGTERM comes while the event loop is blocked, then the process still ends (through the watchdog, code 70)', async () => {
  const service = await startService();
  await ready(service);
  service.child.kill('SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 200));
  service.child.kill('SIGTERM');
  expect(await service.exited).toEqual({ code: WATCHDOG_EXIT_CODE, signal: null });
  expect(service.output()).not.toContain('"msg":"shutting down"');
}, 120_000);

test('when SIGTERM comes to a healthy service, then it shuts down with code 0: the watchdog thread holds nothing open', async () => {
  const service = await startService();
  await ready(service);
  service.child.kill('SIGTERM');
  expect(await service.exited).toEqual({ code: 0, signal: null });
  expect(logLines(service.output()).filter((l) => l.level === 60)).toEqual([]);
}, 120_000);
