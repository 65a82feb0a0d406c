import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { io as ioClient, type Socket } from 'socket.io-client';
import { nextEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { aUser, type TestUser } from '../builders/users.js';
import { platform } from '../../src/platform/index.js';

/** Token expiry on live sockets runs on a clock the tests move by hand: no test waits for a token to run out. */
let app: TestApp;
const clock = new ManualClock();
beforeAll(async () => {
  app = await startTestApp({}, { realtime: { clock } });
});
afterAll(async () => {
  await app.stop();
});
beforeEach(() => clock.reset());

/**
 * A new access token for the user, through the refresh endpoint (fast: no password hashing).
 * Keeps the user's refresh token current.
 */
async function freshToken(user: TestUser): Promise<string> {
  const res = await app.rest('POST', '/api/auth/refresh/', { body: { refresh: user.refresh } });
  if (res.status !== 200) throw new Error(`refresh answered ${res.status}`);
  user.refresh = res.body.refresh_token;
  return res.body.access_token;
}

/** An access token signed with the service's key that expires at `exp` (seconds), as the service would issue it. */
const accessTokenExpiringAt = (userId: string, exp: number) =>
  jwt.sign({ type: 'access', jti: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000), exp }, platform.jwtSecret, { algorithm: 'HS256', subject: userId });

/** The token's `exp` in milliseconds (read only to drive the clock, never trusted by the server). */
const expiresAt = (token: string): number => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp * 1000;

/** A round trip on the socket: whatever the server emitted before answering has arrived by then. */
const roundTrip = (s: Socket) => s.timeout(5000).emitWithAck('locations.search', { q: 'x' });

function connectError(auth: Record<string, unknown>, extraHeaders?: Record<string, string>): Promise<Error> {
  return new Promise((resolve, reject) => {
    const s = ioClient(app.url, { path: '/socket.io/', transports: ['websocket'], auth, extraHeaders, reconnection: false, forceNew: true });
    s.once('connect', () => {
      s.close();
      reject(new Error('connected although the token is bad'));
    });
    s.once('connect_error', (err) => {
      s.close();
      resolve(err);
    });
  });
}

const disconnected = (s: Socket) => new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason)));

describe('socket handshake', () => {
  test('when the token is garbage, then the connection is refused with connect_error unauthorized', async () => {
    expect((await connectError({ token: 'not-a-jwt' })).message).toBe('unauthorized');
  });

  test('when the token has expired, then the connection is refused with connect_error unauthorized', async () => {
    const alice = await aUser(app);
    const expired = accessTokenExpiringAt(alice.id, Math.floor(Date.now() / 1000) - 1);
    expect((await connectError({ token: expired })).message).toBe('unauthorized');
    // Control: the same kind of token, not yet expired, connects.
    const valid = await app.socket(accessTokenExpiringAt(alice.id, Math.floor(Date.now() / 1000) + 60));
    expect(await valid.timeout(5000).emitWithAck('users.profile', {})).toMatchObject({ status: 200, body: { id: alice.id } });
  });

  test('when a good token comes as an Authorization header, then the socket is authenticated', async () => {
    const alice = await aUser(app);
    const s = ioClient(app.url, { path: '/socket.io/', transports: ['websocket'], extraHeaders: { Authorization: `Bearer ${await freshToken(alice)}` }, reconnection: false, forceNew: true });
    try {
      await nextEvent(s, 'connect');
      const ack = await s.timeout(5000).emitWithAck('users.profile', {});
      expect(ack).toMatchObject({ status: 200, body: { id: alice.id } });
    } finally {
      s.close();
    }
  });

  test('when the Authorization header spells the scheme "bearer" in lower case, then the socket is authenticated, as REST is', async () => {
    const alice = await aUser(app);
    const token = await freshToken(alice);
    const rest = await app.http().get('/api/users/profile/').set('Authorization', `bearer ${token}`);
    expect(rest.status).toBe(200);
    const s = ioClient(app.url, { path: '/socket.io/', transports: ['websocket'], extraHeaders: { Authorization: `bearer ${token}` }, reconnection: false, forceNew: true });
    try {
      await nextEvent(s, 'connect');
      expect(await s.timeout(5000).emitWithAck('users.profile', {})).toEqual({ status: 200, body: rest.body });
    } finally {
      s.close();
    }
  });

  test('when an anonymous socket calls an operation that needs a user, then the ack is 401 not provided', async () => {
    const anonymous = await app.socket();
    const ack = await anonymous.timeout(5000).emitWithAck('users.profile', {});
    expect(ack).toEqual({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
  });
});

describe('access token expiry on a live socket', () => {
  test('when the access token expires, then the server emits auth:expired and disconnects the socket, not a moment before', async () => {
    const alice = await aUser(app);
    const token = await freshToken(alice);
    const s = await app.socket(token);
    let expiredAt: number | null = null;
    s.on('auth:expired', () => (expiredAt = clock.now()));
    const gone = disconnected(s);

    clock.advance(expiresAt(token) - clock.now() - 1);
    expect((await roundTrip(s)).status).toBe(200);
    expect(expiredAt).toBeNull();

    clock.advance(1);
    expect(await gone).toBe('io server disconnect');
    expect(expiredAt).toBe(expiresAt(token));
    expect(s.connected).toBe(false);
  });

  test('when the client renews with a fresh token before expiry, then the socket stays connected past the first expiry, until the new one runs out', async () => {
    const alice = await aUser(app);
    const first = accessTokenExpiringAt(alice.id, Math.floor(clock.now() / 1000) + 60);
    const s = await app.socket(first);
    let expiredAt: number | null = null;
    s.on('auth:expired', () => (expiredAt = clock.now()));

    clock.advance(expiresAt(first) - clock.now() - 1000);
    const renewal = accessTokenExpiringAt(alice.id, expiresAt(first) / 1000 + 60);
    const ack = await s.timeout(3000).emitWithAck('auth:renew', { token: renewal });
    expect(ack).toEqual({ status: 200, body: { expires_at: new Date(expiresAt(renewal)).toISOString() } });

    clock.advance(expiresAt(first) - clock.now() + 10_000); // well past the first token's expiry
    expect(await s.timeout(3000).emitWithAck('users.profile', {})).toMatchObject({ status: 200, body: { id: alice.id } });
    expect(expiredAt).toBeNull();
    expect(s.connected).toBe(true);

    const gone = disconnected(s);
    clock.advance(expiresAt(renewal) - clock.now());
    expect(await gone).toBe('io server disconnect');
    expect(expiredAt).toBe(expiresAt(renewal));
  });

  test('when a socket disconnects, then its expiry timer is cleared', async () => {
    const alice = await aUser(app);
    const before = clock.pending;
    const s = await app.socket(await freshToken(alice));
    expect(clock.pending).toBe(before + 1);
    app.server.io.local.in(`user:${alice.id}`).disconnectSockets(true);
    expect(clock.pending).toBe(before);
    expect(await nextEvent(s, 'disconnect')).toBe('io server disconnect');
  });

  test("when the client renews with a bad token or another user's token, then the ack is 401 and the socket keeps its user", async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const s = await app.socket(await freshToken(alice));
    expect(await s.timeout(3000).emitWithAck('auth:renew', { token: 'garbage' })).toMatchObject({ status: 401 });
    expect(await s.timeout(3000).emitWithAck('auth:renew', { token: await freshToken(bob) })).toMatchObject({ status: 401 });
    const profile = await s.timeout(3000).emitWithAck('users.profile', {});
    expect(profile).toMatchObject({ status: 200, body: { id: alice.id } });
  });
});
