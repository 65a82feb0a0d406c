// @run-alone: it asserts how soon a stopping service answers and closes (1.5 s, 5 s) (tests/runner/run-alone.mjs).
import net from 'node:net';
import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { operations } from '../../src/registry.js';
import { defineOperation, ok } from '../../src/core/operation.js';
import { platform } from '../../src/platform/index.js';

/**
 * Graceful shutdown (SIGTERM in main.ts calls the same stop()): the listener closes at once, requests
 * already running finish, and only then do the database and Redis connections close.
 * A throwaway operation stands in for a slow request: it waits until the test lets it go.
 */
function slowOperation() {
  let entered!: () => void;
  let release!: () => void;
  const hasEntered = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const op = defineOperation({
    name: 'test.slow',
    method: 'GET',
    path: '/api/test/slow/',
    auth: 'public',
    summary: 'Answers when the test lets it',
    tags: ['test'],
    input: z.object({}),
    handler: async () => {
      entered();
      await released;
      // The database must still be there for a request that was accepted before the stop.
      const { rows } = await platform.db.execute(sql`select 41 + 1 as answer`);
      return ok({ answer: Number((rows[0] as { answer: number }).answer) });
    },
  });
  return { op, hasEntered, release };
}

const tryConnect = (port: number) =>
  new Promise<'connected' | string>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });

describe('graceful shutdown', () => {
  let app: TestApp | null = null;
  afterEach(async () => {
    await app?.stop();
    app = null;
  });

  test('when stop() starts during a slow request, then that request completes and new connections are refused', async () => {
    const slow = slowOperation();
    app = await startTestApp({}, { operations: [...operations, slow.op] });
    const { port, url } = app.server;
    expect(await tryConnect(port)).toBe('connected');

    const inFlight = fetch(`${url}/api/test/slow/`);
    await slow.hasEntered;
    let stopped = false;
    const stopping = app.server.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(await tryConnect(port)).toBe('ECONNREFUSED');
    expect(stopped).toBe(false);

    slow.release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toEqual({ answer: 42 });

    // Long before the default 10 s grace period: the answer said `Connection: close`, so the client
    // does not keep an idle keep-alive connection that would hold the server open.
    const startedWaiting = Date.now();
    await stopping;
    expect(Date.now() - startedWaiting).toBeLessThan(1500);
  });

  test('when a request outlives the grace period, then its connection is cut and stop() still finishes', async () => {
    const slow = slowOperation();
    app = await startTestApp({ SHUTDOWN_GRACE_MS: '500' }, { operations: [...operations, slow.op] });
    const inFlight = fetch(`${app.server.url}/api/test/slow/`).then(
      (res) => `answered ${res.status}`,
      () => 'connection closed',
    );
    await slow.hasEntered;
    const startedStopping = Date.now();
    await app.server.stop();
    const took = Date.now() - startedStopping;
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(5000);
    expect(await inFlight).toBe('connection closed');
    slow.release();
  });

  test('when stop() is called twice, then both calls wait for the same shutdown', async () => {
    app = await startTestApp();
    const first = app.server.stop();
    const second = app.server.stop();
    expect(second).toBe(first);
    await first;
    expect(await tryConnect(app.server.port)).toBe('ECONNREFUSED');
  });
});
