import { io as ioClient, type Socket } from 'socket.io-client';
import { nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser, type TestUser } from '../builders/users.js';
import { signAccessToken } from '../../src/modules/accounts/tokens.js';

/** Access tokens live 2 seconds in this app, so expiry on a live socket can be watched. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ACCESS_TOKEN_LIFETIME_SECONDS: '2' });
});
afterAll(async () => {
  await app.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** JWT times are whole seconds: start just after a second begins so a token lives its full 2 s. */
const startOfNextSecond = () => sleep(1000 - (Date.now() % 1000) + 20);

/**
 * A new access token for the user, through the refresh endpoint (fast: no password hashing, so the
 * timing of these tests does not depend on the machine's load). Keeps the user's refresh token current.
 */
async function freshToken(user: TestUser): Promise<string> {
  const res = await app.rest('POST', '/api/auth/refresh/', { body: { refresh: user.refresh } });
  if (res.status !== 200) throw new Error(`refresh answered ${res.status}`);
  user.refresh = res.body.refresh_token;
  return res.body.access_token;
}

/** The token's `exp` in milliseconds (read only to time the test, never trusted by the server). */
const expiresAt = (token: string): number => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp * 1000;

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
    await sleep(3100);
    expect((await connectError({ token: alice.token })).message).toBe('unauthorized');
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
  test('when the access token expires, then the server emits auth:expired and disconnects the socket', async () => {
    const alice = await aUser(app);
    await startOfNextSecond();
    const connectedAt = Date.now();
    const s = await app.socket(await freshToken(alice));
    const expired = nextEvent(s, 'auth:expired', 4000).then(() => Date.now());
    const gone = disconnected(s);
    const expiredAt = await expired;
    expect(expiredAt - connectedAt).toBeGreaterThan(1500);
    expect(await gone).toBe('io server disconnect');
    expect(s.connected).toBe(false);
  });

  test('when the client renews with a fresh token before expiry, then the socket stays connected past the first expiry, until the new one runs out', async () => {
    const alice = await aUser(app);
    await startOfNextSecond();
    // Signed by the service's own token code, without a round trip: the renewal window is under a second.
    const first = signAccessToken(alice.id);
    const s = await app.socket(first);
    // JWT times are whole seconds: wait for the next second so the renewal expires later than the first token.
    await sleep(Math.max(0, expiresAt(first) - 1000 - Date.now()) + 20);
    const renewal = signAccessToken(alice.id);
    expect(expiresAt(renewal)).toBeGreaterThan(expiresAt(first));
    const ack = await s.timeout(3000).emitWithAck('auth:renew', { token: renewal });
    expect(ack).toEqual({ status: 200, body: { expires_at: new Date(expiresAt(renewal)).toISOString() } });

    await noEvent(s, 'auth:expired', expiresAt(first) - Date.now() + 400); // until past the first token's expiry
    expect(s.connected).toBe(true);
    const profile = await s.timeout(3000).emitWithAck('users.profile', {});
    expect(profile).toMatchObject({ status: 200, body: { id: alice.id } });
    await nextEvent(s, 'auth:expired', expiresAt(renewal) - Date.now() + 1500);
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
