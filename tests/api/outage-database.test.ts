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
