import { io as ioClient } from 'socket.io-client';
import { startTestApp, eventually, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, callerFrom } from '../helpers/caller.js';
import { startTcpProxy, targetOf, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * A PostgreSQL restart, played by cutting a TCP proxy between the app and the real (shared) server: requests
 * during the outage get 503 with a clear body on both transports, /health says the database is down, the
 * node stays up, and everything works again once the database is back, without restarting the app.
 */
let proxy: TcpProxy;
let app: TestApp;
beforeAll(async () => {
  proxy = await startTcpProxy(targetOf(process.env.TEST_DATABASE_URL!));
  app = await startTestApp({ DATABASE_URL: proxy.through(process.env.TEST_DATABASE_URL!), DATABASE_CONNECT_TIMEOUT_MS: '2000' });
});
afterAll(async () => {
  await proxy.restore();
  await app?.stop();
  await proxy.close();
});

const UNAVAILABLE = { detail: 'Service temporarily unavailable, try again later.' };

describe('a PostgreSQL outage', () => {
  test('when the database goes away, then requests get 503 with a clear body and Retry-After, /health names the database; when it is back, everything works again', async () => {
    const caller = callerFrom(app);
    const alice = await aUserFrom(caller);
    const socket = await app.socket(alice.token);
    expect((await caller.rest('GET', '/api/users/profile/', { token: alice.token })).status).toBe(200);

    await proxy.cut();

    const rest = await caller.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(rest.status).toBe(503);
    expect(rest.body).toEqual(UNAVAILABLE);
    expect(rest.headers['retry-after']).toBe('5');
    // An anonymous operation that needs the database, and a socket event whose caller must be checked again.
    const login = await caller.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } });
    expect(login).toMatchObject({ status: 503, body: UNAVAILABLE });
    const health = await caller.rest('GET', '/health');
    expect(health).toMatchObject({ status: 503, body: { status: 'unavailable', database: 'unavailable' } });
    expect(await socket.timeout(10000).emitWithAck('notifications.list', {})).toEqual({ status: 503, body: UNAVAILABLE });

    await proxy.restore();

    expect(await eventually(async () => (await caller.rest('GET', '/health')).status === 200, 10000)).toBe(true);
    expect((await caller.rest('GET', '/health')).body).toMatchObject({ status: expect.stringMatching(/^(ok|degraded)$/), database: 'ok' });
    expect((await caller.rest('GET', '/api/users/profile/', { token: alice.token })).status).toBe(200);
    expect((await socket.timeout(10000).emitWithAck('notifications.list', {})).status).toBe(200);
    expect(socket.connected).toBe(true);
    expect((await caller.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } })).status).toBe(200);
  });
});

/** How a socket handshake with this token ends: connected, or the `connect_error` with its message and data. */
function handshake(app: TestApp, token: string): Promise<{ connected: true } | { message: string; data: unknown }> {
  return new Promise((resolve) => {
    const s = ioClient(app.url, { path: '/socket.io/', transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true });
    s.once('connect', () => {
      s.close();
      resolve({ connected: true });
    });
    s.once('connect_error', (err: Error & { data?: unknown }) => {
      s.close();
      resolve({ message: err.message, data: err.data });
    });
  });
}

/** The database is cut for the length of `during`, and back (the app's pool reconnected) when it returns. */
async function withDatabaseCut(caller: ReturnType<typeof callerFrom>, during: () => Promise<void>): Promise<void> {
  await proxy.cut();
  try {
    await during();
  } finally {
    await proxy.restore();
    expect(await eventually(async () => (await caller.rest('GET', '/health')).status === 200, 10000)).toBe(true);
  }
}

const HANDSHAKE_UNAVAILABLE = { message: 'unavailable', data: { status: 503, detail: UNAVAILABLE.detail, retry_after: 5 } };

describe('a PostgreSQL outage on the socket (the client keeps its token)', () => {
  test('when the database is down, then a handshake with a good token is refused unavailable (503, retry_after), not unauthorized; when it is back, the same token connects', async () => {
    const caller = callerFrom(app);
    const alice = await aUserFrom(caller);
    const signedOut = await aUserFrom(caller);
    expect((await caller.rest('POST', '/api/auth/logout/', { token: signedOut.token, body: { refresh: signedOut.refresh } })).status).toBe(200);
    // Controls while the database is up: a bad token, and a signed-out session's token, are judged and refused unauthorized.
    expect(await handshake(app, 'not-a-jwt')).toMatchObject({ message: 'unauthorized' });
    expect(await handshake(app, signedOut.token)).toMatchObject({ message: 'unauthorized' });
    expect(await handshake(app, alice.token)).toEqual({ connected: true });

    await withDatabaseCut(caller, async () => {
      expect(await handshake(app, alice.token)).toEqual(HANDSHAKE_UNAVAILABLE);
      // A token that cannot be valid is still judged without the database.
      expect(await handshake(app, 'not-a-jwt')).toMatchObject({ message: 'unauthorized' });
    });

    expect(await handshake(app, alice.token)).toEqual({ connected: true });
  });

  test('when auth:renew cannot check its token because the database is down, then it is acked 503 with retry_after and the socket stays signed in; when it is back, the renewal succeeds', async () => {
    const caller = callerFrom(app);
    const carol = await aUserFrom(caller);
    const socket = await app.socket(carol.token);
    const refreshed = await caller.rest('POST', '/api/auth/refresh/', { body: { refresh: carol.refresh } });
    expect(refreshed.status).toBe(200);
    const freshToken: string = refreshed.body.access_token;

    await withDatabaseCut(caller, async () => {
      expect(await socket.timeout(10000).emitWithAck('auth:renew', { token: freshToken })).toEqual({ status: 503, body: { ...UNAVAILABLE, retry_after: 5 } });
      expect(socket.connected).toBe(true);
    });

    expect(await socket.timeout(10000).emitWithAck('auth:renew', { token: freshToken })).toMatchObject({ status: 200, body: { expires_at: expect.any(String) } });
    expect(await socket.timeout(10000).emitWithAck('users.profile', {})).toMatchObject({ status: 200, body: { id: carol.id } });
  });
});
