import type { PoolClient } from 'pg';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { platform } from '../../src/platform/index.js';
import { domainEvents } from '../../src/core/events.js';

/**
 * Checking the caller reads the database before any operation runs (passport's user lookup on REST, a cold
 * caller cache on the socket). When that read runs out of database time (a full pool), the caller is told
 * "busy, try again" (503 with Retry-After), as an operation's own timed-out query is, not a bare 500.
 */
const BUSY = { detail: 'Service temporarily unavailable, try again later.' };
let app: TestApp;
beforeAll(async () => {
  // The wait for a connection is short so that a full pool is answered quickly, but not so short that opening a
  // real connection on a loaded CI machine (the migration's, at start) runs past it.
  app = await startTestApp({ DATABASE_POOL_MAX: '1', DATABASE_CONNECT_TIMEOUT_MS: '2000' });
});
afterAll(async () => {
  await app.stop();
});

/** Run `fn` while something else holds the app's only pool connection. */
async function withPoolExhausted<T>(fn: () => Promise<T>): Promise<T> {
  const held: PoolClient = await platform.database.pool.connect();
  try {
    return await fn();
  } finally {
    held.release();
  }
}

test('when the pool has no connection for the REST caller check, then 503 with Retry-After', async () => {
  const alice = await aUser(app);
  const res = await withPoolExhausted(() => app.rest('GET', '/api/users/profile/', { token: alice.token }));
  expect(res.status).toBe(503);
  expect(res.body).toEqual(BUSY);
  expect(res.headers['retry-after']).toBe('5');
  expect((await app.rest('GET', '/api/users/profile/', { token: alice.token })).status).toBe(200);
});

test('when the pool has no connection for a cold socket caller check, then the event is answered 503', async () => {
  const alice = await aUser(app);
  const phone = await app.socket(alice.token);
  const ack = await withPoolExhausted(async () => {
    // Drops the socket's cached caller, so the next event must read the user again.
    domainEvents.publish('user.access_changed', { userId: alice.id });
    return phone.timeout(10000).emitWithAck('users.profile', {});
  });
  expect(ack).toEqual({ status: 503, body: BUSY });
  expect((await phone.timeout(10000).emitWithAck('users.profile', {})).status).toBe(200);
});
