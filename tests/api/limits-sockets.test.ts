import { io as ioClient, type Socket } from 'socket.io-client';
import { startTestApp, nextEvent, eventually, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, anIp, callerFrom } from '../helpers/caller.js';

/**
 * Limits on sockets: connections per user and per address (a clear connect_error), events per second per
 * socket (acked 429, the event is not run), and the largest message (maxHttpBufferSize).
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({
    SOCKET_MAX_CONNECTIONS_PER_USER: '2',
    SOCKET_MAX_CONNECTIONS_PER_IP: '3',
    SOCKET_EVENTS_PER_SECOND: '5',
    SOCKET_MAX_PAYLOAD_BYTES: '2000',
  });
});
afterAll(async () => {
  await app.stop();
});

const opened: Socket[] = [];
afterEach(() => opened.splice(0).forEach((s) => s.close()));

/** A socket from `ip`: connected, or the connect_error. */
async function connect(ip: string, token?: string): Promise<{ socket: Socket; error: (Error & { data?: any }) | null }> {
  const socket = ioClient(app.url, { path: '/socket.io/', transports: ['websocket'], extraHeaders: { 'x-forwarded-for': ip }, auth: token ? { token } : {}, reconnection: false, forceNew: true });
  opened.push(socket);
  return new Promise((resolve) => {
    socket.once('connect', () => resolve({ socket, error: null }));
    socket.once('connect_error', (error) => resolve({ socket, error }));
  });
}

describe('connections per user', () => {
  test('when a user opens one socket more than allowed, then it gets connect_error with a clear message; closing one makes room again', async () => {
    const caller = callerFrom(app);
    const alice = await aUserFrom(caller);
    const first = await connect(anIp(), alice.token);
    const second = await connect(anIp(), alice.token);
    expect([first.error, second.error]).toEqual([null, null]);
    const third = await connect(anIp(), alice.token);
    expect(third.error?.message).toBe('Too many connections for this user (at most 2).');
    expect(third.error?.data).toEqual({ status: 429, detail: 'Too many connections for this user (at most 2).' });
    // Another user is not affected.
    expect((await connect(anIp(), (await aUserFrom(caller)).token)).error).toBeNull();
    first.socket.close();
    // The server sees the close a moment later.
    expect(await eventually(async () => (await connect(anIp(), alice.token)).error === null)).toBe(true);
  });

  test('when an anonymous socket signs in with auth:renew beyond the cap, then the ack is 429 and the socket stays anonymous', async () => {
    const caller = callerFrom(app);
    const alice = await aUserFrom(caller);
    await connect(anIp(), alice.token);
    await connect(anIp(), alice.token);
    const { socket } = await connect(anIp());
    expect(await socket.timeout(5000).emitWithAck('auth:renew', { token: alice.token })).toEqual({ status: 429, body: { detail: 'Too many connections for this user (at most 2).' } });
    expect((await socket.timeout(5000).emitWithAck('users.profile', {})).status).toBe(401);
  });

  test('when a socket logs out, then it no longer counts for its user', async () => {
    const caller = callerFrom(app);
    const alice = await aUserFrom(caller);
    const login = await caller.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } });
    const { socket } = await connect(anIp(), alice.token);
    const otherSession = await connect(anIp(), login.body.access_token);
    expect((await socket.timeout(5000).emitWithAck('accounts.logout', { refresh: alice.refresh })).status).toBe(200);
    // The socket is anonymous now; the other session's socket still counts, and there is room for one more.
    expect((await connect(anIp(), login.body.access_token)).error).toBeNull();
    expect(otherSession.socket.connected).toBe(true);
  });
});

describe('connections per address', () => {
  test('when one address opens one socket more than allowed, then connect_error names the limit; another address is not affected', async () => {
    const ip = anIp();
    for (let i = 0; i < 3; i++) expect((await connect(ip)).error).toBeNull();
    const refused = await connect(ip);
    expect(refused.error?.message).toBe('Too many connections from this address (at most 3).');
    expect(refused.error?.data).toEqual({ status: 429, detail: 'Too many connections from this address (at most 3).' });
    expect((await connect(anIp())).error).toBeNull();
  });

  test('when a signed-in socket is refused for its address, then it does not count for its user either', async () => {
    const caller = callerFrom(app);
    const alice = await aUserFrom(caller);
    const ip = anIp();
    for (let i = 0; i < 3; i++) await connect(ip);
    expect((await connect(ip, alice.token)).error?.message).toMatch(/from this address/);
    expect((await connect(anIp(), alice.token)).error).toBeNull();
    expect((await connect(anIp(), alice.token)).error).toBeNull();
  });
});

describe('events per second per socket', () => {
  test('when a socket sends more events in a second than allowed, then the extra ones are acked 429 and not run; the next second it is served again', async () => {
    const { socket } = await connect(anIp());
    const acks = await Promise.all(Array.from({ length: 8 }, () => socket.timeout(5000).emitWithAck('no.such.event', {})));
    expect(acks.filter((a) => a.status === 404)).toHaveLength(5);
    const throttled = acks.filter((a) => a.status === 429);
    expect(throttled).toHaveLength(3);
    expect(throttled[0].body).toEqual({ detail: 'Request was throttled. Expected available in 1 second.' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await socket.timeout(5000).emitWithAck('no.such.event', {})).status).toBe(404);
  });
});

describe('message size', () => {
  test('when a message is under SOCKET_MAX_PAYLOAD_BYTES, then it is served; when it is over, then the connection is closed', async () => {
    const { socket } = await connect(anIp());
    expect((await socket.timeout(5000).emitWithAck('users.search', { q: 'x'.repeat(1000) })).status).toBe(401);
    const closed = nextEvent(socket, 'disconnect');
    socket.emit('users.search', { q: 'x'.repeat(5000) });
    expect(await closed).toBe('transport close');
  });
});
