import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, callerFrom } from '../helpers/caller.js';
import { operations } from '../../src/registry.js';
import { effectiveRateLimits, isCallerKeyed } from '../../src/core/operation-limits.js';
import { limitsTable } from '../../src/core/limits-table.js';
import { loadConfig } from '../../src/platform/config.js';

/**
 * Every operation is rate limited: its own limit per caller, or the default for reads and writes (per user,
 * per IP for an anonymous caller). The default answers as any limit does: 429, the contract's body and
 * Retry-After on REST, the same `{status: 429, body}` ack on the socket.
 */
describe('every operation has an effective rate limit', () => {
  test.each(operations.map((op) => [op.name, op] as const))('%s is limited per caller', (_name, op) => {
    const limits = effectiveRateLimits(op);
    expect(limits.some(isCallerKeyed)).toBe(true);
    for (const rule of limits) {
      expect(rule.points).toBeGreaterThan(0);
      expect(rule.durationSeconds).toBeGreaterThan(0);
    }
  });

  test('the table of docs/limits.md (npm run limits:table) has a row for every limit of every operation and the socket limits', () => {
    const config = loadConfig({});
    const table = limitsTable(operations, {
      maxConnectionsPerUser: config.SOCKET_MAX_CONNECTIONS_PER_USER,
      maxConnectionsPerIp: config.SOCKET_MAX_CONNECTIONS_PER_IP,
      eventsPerSecond: config.SOCKET_EVENTS_PER_SECOND,
      maxPayloadBytes: config.SOCKET_MAX_PAYLOAD_BYTES,
      maxSubscriptions: config.SOCKET_MAX_SUBSCRIPTIONS,
    });
    for (const op of operations) {
      expect(table.split('\n').filter((line) => line.startsWith(`| \`${op.name}\` |`))).toHaveLength(effectiveRateLimits(op).length);
    }
    expect(table).toContain('| `users.profile` | `GET /api/users/profile/` | 600 per minute | user (IP when anonymous) | default |');
    expect(table).toContain('| `accounts.register` | `POST /api/auth/register/` | 20 per hour | IP | declared |');
    for (const variable of ['SOCKET_MAX_CONNECTIONS_PER_USER', 'SOCKET_MAX_CONNECTIONS_PER_IP', 'SOCKET_EVENTS_PER_SECOND', 'SOCKET_MAX_PAYLOAD_BYTES', 'SOCKET_MAX_SUBSCRIPTIONS']) expect(table).toContain(variable);
  });
});

describe('the default limits', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMIT_DEFAULT_READS_PER_MINUTE: '3', RATE_LIMIT_DEFAULT_WRITES_PER_MINUTE: '2' });
  });
  afterAll(async () => {
    await app.stop();
  });

  test('when a user spends the read default of an operation over both transports, then the next call is 429 on REST (with Retry-After) and on the socket, and other operations are unaffected', async () => {
    const caller = callerFrom(app);
    const alice = await aUserFrom(caller);
    expect((await caller.rest('GET', '/api/users/profile/', { token: alice.token })).status).toBe(200);
    expect((await caller.emit('users.profile', {}, { token: alice.token })).status).toBe(200);
    expect((await caller.rest('GET', '/api/users/profile/', { token: alice.token })).status).toBe(200);
    const rest = await caller.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(rest.status).toBe(429);
    expect(rest.body).toEqual({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds?\.$/) });
    expect(Number(rest.headers['retry-after'])).toBeGreaterThan(0);
    const socket = await caller.emit('users.profile', {}, { token: alice.token });
    expect(socket).toEqual({ status: 429, body: { detail: expect.stringMatching(/^Request was throttled\./) } });
    // Counted per operation: another read still has its budget.
    expect((await caller.rest('GET', '/api/notifications/', { token: alice.token })).status).toBe(200);
  });

  test('when a user spends the write default, then 429; another user is not affected (counted per user, not per address)', async () => {
    const caller = callerFrom(app);
    const [alice, bob] = [await aUserFrom(caller), await aUserFrom(caller)];
    const patch = (token: string) => caller.rest('PATCH', '/api/users/profile/', { token, body: { bio: 'hello' } });
    expect((await patch(alice.token)).status).toBe(200);
    expect((await patch(alice.token)).status).toBe(200);
    expect((await patch(alice.token)).status).toBe(429);
    expect((await patch(bob.token)).status).toBe(200);
  });

  test('when an anonymous caller spends a read default, then it is counted per address', async () => {
    const [caller, other] = [callerFrom(app), callerFrom(app)];
    const someone = await aUserFrom(other);
    const list = (c: typeof caller) => c.rest('GET', `/api/users/${someone.username}`);
    for (let i = 0; i < 3; i++) expect((await list(caller)).status).toBe(200);
    expect((await list(caller)).status).toBe(429);
    expect((await list(other)).status).toBe(200);
  });
});

describe('RATE_LIMITS=off', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMITS: 'off', RATE_LIMIT_DEFAULT_READS_PER_MINUTE: '1', SOCKET_EVENTS_PER_SECOND: '2' });
  });
  afterAll(async () => {
    await app.stop();
  });

  test('when limits are off, then the default limits are off too', async () => {
    const caller = callerFrom(app);
    const someone = await aUserFrom(caller);
    for (let i = 0; i < 3; i++) expect((await caller.rest('GET', `/api/users/${someone.username}`)).status).toBe(200);
  });

  test('when limits are off, then the per-socket event budget is lifted too', async () => {
    const socket = await app.socket();
    const acks = await Promise.all(Array.from({ length: 10 }, () => socket.timeout(5000).emitWithAck('no.such.event', {})));
    expect(acks.every((a) => a.status === 404)).toBe(true);
  });
});
