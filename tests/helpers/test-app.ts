import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import crypto from 'node:crypto';
import request from 'supertest';
import { io as ioClient, type Socket } from 'socket.io-client';
import { loadConfig } from '../../src/platform/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { Operation } from '../../src/core/operation.js';
import type { RealtimeOptions } from '../../src/realtime/server.js';
import { operations as registryOperations } from '../../src/registry.js';
import { openApiCheck } from './openapi-check.js';

/**
 * The real service, in-process, on a free port, against the test database (and Redis when
 * REDIS_URL is set). Each test file starts one and stops it in afterAll.
 */
export interface TestApp {
  url: string;
  server: RunningServer;
  dataDir: string;
  /** A REST call: `{status, body, headers}`. */
  rest(method: string, path: string, opts?: { token?: string; body?: unknown; query?: Record<string, unknown> }): Promise<{ status: number; body: any; headers: Record<string, string> }>;
  /** An operation over the socket: the ack's `{status, body}`. */
  emit(event: string, input?: unknown, opts?: { token?: string }): Promise<{ status: number; body: any }>;
  /** A connected socket.io client (anonymous without a token); closed when the app stops. */
  socket(token?: string): Promise<Socket>;
  http(): ReturnType<typeof request>;
  stop(): Promise<void>;
}

/** `opts.operations` replaces the registry's operations (e.g. `[...operations, aThrowawayOp]`); `opts.realtime.clock` drives token expiry on sockets. */
export async function startTestApp(env: Record<string, string> = {}, opts: { operations?: readonly Operation[]; realtime?: RealtimeOptions } = {}): Promise<TestApp> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-test-app-'));
  const config = loadConfig(
    {},
    {
      NODE_ENV: 'test',
      PORT: 0,
      HOST: '127.0.0.1',
      DATABASE_URL: process.env.TEST_DATABASE_URL!,
      DATABASE_POOL_MAX: process.env.TEST_DATABASE_POOL_MAX ?? '5',
      DATA_DIR: dataDir,
      JWT_SECRET: 'test-secret-' + crypto.randomUUID(),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      RATE_LIMIT_PREFIX: `rl-test-${crypto.randomUUID()}`,
      // Per jest process, like the Socket.IO cluster below: two nodes of a cluster share it, other workers and runs do not.
      JOB_LOCK_PREFIX: `lock:job-test-${process.pid}`,
      // Registering costs an argon2 hash: at the default 64 MiB and 3 passes about 0.2 s of CPU, thousands of times a run.
      PASSWORD_HASH_MEMORY_KIB: '1024',
      PASSWORD_HASH_PASSES: '1',
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      ...env,
    },
  );
  // One Socket.IO cluster per jest process (the files a worker runs share it, one after another): other workers
  // and runs on this machine use the same Redis, and their broadcasts (a room emit, a fetchSockets) must not reach
  // this process's sockets.
  const realtime = { adapterKey: `socket.io-test-${process.pid}`, ...opts.realtime };
  const server = await startServer(config, { jobs: false, operations: opts.operations, realtime });
  const sockets: Socket[] = [];
  // Every answer is checked against the published OpenAPI document (tests/helpers/openapi-check.ts).
  const answers = openApiCheck(opts.operations ?? registryOperations);
  answers.watchServer(server.httpServer);

  const socket = async (token?: string) => {
    const s = ioClient(server.url, { path: '/socket.io/', transports: ['websocket'], auth: token ? { token } : {}, reconnection: false, forceNew: true });
    sockets.push(s);
    answers.watchSocket(s);
    await new Promise<void>((resolve, reject) => {
      s.once('connect', () => resolve());
      s.once('connect_error', (err) => reject(err));
    });
    return s;
  };

  return {
    url: server.url,
    server,
    dataDir,
    async rest(method, urlPath, opts = {}) {
      let req = request(server.httpServer)[method.toLowerCase() as 'get'](urlPath);
      if (opts.token) req = req.set('Authorization', `Bearer ${opts.token}`);
      if (opts.query) req = req.query(opts.query as Record<string, string>);
      if (opts.body !== undefined) req = req.send(opts.body as object);
      const res = await req;
      // An iCalendar answer (text/calendar) is its text; JSON is parsed.
      return { status: res.status, body: res.type === 'text/calendar' ? res.text : res.body, headers: res.headers as Record<string, string> };
    },
    async emit(event, input = {}, opts = {}) {
      const s = await socket(opts.token);
      try {
        return await s.timeout(10000).emitWithAck(event, input);
      } finally {
        s.close();
      }
    },
    socket,
    http: () => request(server.httpServer),
    async stop() {
      for (const s of sockets) s.close();
      await server.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
      const lies = answers.violations();
      if (lies.length) throw new Error(`Answers the OpenAPI document does not describe (fix the operation's responses or errors):\n${lies.join('\n')}`);
    },
  };
}

/**
 * How long a wait for something that must happen may take before it fails: only a failing wait lasts this long
 * (a passing one ends when the event comes), and test files run in parallel on a shared two-core machine, where a
 * push that takes milliseconds when idle has taken over 5 s (CI, issue 32). Below jest's 30 s test timeout.
 * `noEvent` windows (something must NOT happen) stay short: load only makes them easier to pass.
 */
const ARRIVAL_WAIT_MS = 15_000;

/** Wait for one event on a socket (rejects after `ms`). */
export function nextEvent<T = any>(socket: Socket, event: string, ms = ARRIVAL_WAIT_MS): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    socket.once(event, (payload: T) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });
}

/** Resolves if the event does NOT arrive within `ms`; rejects if it does. */
export function noEvent(socket: Socket, event: string, ms = 500): Promise<void> {
  return new Promise((resolve, reject) => {
    const handler = (payload: unknown) => reject(new Error(`unexpected ${event}: ${JSON.stringify(payload)}`));
    socket.once(event, handler);
    setTimeout(() => {
      socket.off(event, handler);
      resolve();
    }, ms);
  });
}

export const describeWithRedis = process.env.REDIS_URL ? describe : describe.skip;
export const unique = (prefix = 'u') => `${prefix}${crypto.randomUUID().replace(/-/g, '').slice(0, 10)}`;

/** Wait until a condition holds (room moves and cross-node messages follow a commit asynchronously). */
export async function eventually(check: () => Promise<boolean>, ms = ARRIVAL_WAIT_MS): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    // Let I/O run between checks (a check that answers at once would otherwise starve it).
    await new Promise((resolve) => setImmediate(resolve));
  }
  return false;
}
