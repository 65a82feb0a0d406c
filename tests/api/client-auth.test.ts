import jwt from 'jsonwebtoken';
import { jest } from '@jest/globals';
import { ApiError, createClient, type HyperlocalClient, type StorageLike } from '@hyperlocal/client';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { eventuallyTrue } from '../helpers/client.js';
import { authenticateAccessToken } from '../../src/modules/accounts/tokens.js';

/**
 * The client's session against the real service with 4-second access tokens: renewed before they run out with no
 * call failing on either transport; two clients sharing one storage refreshing at once both stay signed in; a
 * session the service revoked ends with `auth:ended`; a handshake refused `unavailable` is tried again after the
 * wait the service names, with the session kept; one refused `unauthorized` is renewed once and tried again.
 */
jest.setTimeout(60_000);

const LIFETIME_SECONDS = 4;
/** Handshake token checks to fail as a database outage would (the `unavailable` refusal), counted down. */
let failChecks = 0;
const outage = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp(
    { ACCESS_TOKEN_LIFETIME_SECONDS: String(LIFETIME_SECONDS), RATE_LIMITS: 'off' },
    {
      realtime: {
        authenticate: async (token) => {
          if (failChecks > 0) {
            failChecks--;
            throw outage();
          }
          return authenticateAccessToken(token);
        },
      },
    },
  );
});
afterAll(async () => {
  await app?.stop();
});

/** A storage as localStorage is: synchronous strings, shared by whoever holds it. */
function aStorage(): StorageLike & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return { items, getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v), removeItem: (k) => void items.delete(k) };
}

const clients: HyperlocalClient[] = [];
function aClient(options: Partial<Parameters<typeof createClient>[0]> = {}): HyperlocalClient {
  const client = createClient({ baseUrl: app.url, transports: ['websocket'], ...options });
  clients.push(client);
  return client;
}
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

const live = (client: HyperlocalClient, ms = 15_000) => eventuallyTrue(() => client.status === 'live', ms);

test('when the access token runs out mid-session, then it is renewed before, on the socket and over REST, and no call fails', async () => {
  const user = await aUser(app);
  const socketClient = aClient();
  const restClient = aClient({ realtime: false });
  await socketClient.login({ username: user.username, password: user.password });
  await restClient.login({ username: user.username, password: user.password });
  expect(await live(socketClient)).toBe(true);
  let renewals = 0;
  socketClient.on('auth:renewed', () => renewals++);
  let expired = 0;
  socketClient.on('auth:expired', () => expired++);
  const statuses: string[] = [];
  socketClient.on('status', (s) => statuses.push(s));

  const failures: unknown[] = [];
  let calls = 0;
  const until = Date.now() + LIFETIME_SECONDS * 1000 * 3;
  while (Date.now() < until) {
    for (const client of [socketClient, restClient]) {
      calls++;
      await client.call('users.profile').catch((err) => failures.push(err));
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  expect(failures).toEqual([]);
  expect(calls).toBeGreaterThan(20);
  // Three lifetimes: renewed at least twice, and the socket was never told its token ran out nor dropped.
  expect(renewals).toBeGreaterThanOrEqual(2);
  expect(expired).toBe(0);
  expect(statuses).toEqual([]);
  expect(socketClient.status).toBe('live');
});

test('when two clients share one storage and refresh at the same moment, then both stay signed in, and keep renewing', async () => {
  const user = await aUser(app);
  const storage = aStorage();
  const first = aClient({ storage });
  await first.login({ username: user.username, password: user.password });
  const second = aClient({ storage });
  await second.ready;
  expect(second.signedIn).toBe(true);
  const ended: string[] = [];
  for (const client of [first, second]) client.on('auth:ended', ({ reason }) => ended.push(reason));

  await Promise.all([first.renew(), second.renew()]);
  await Promise.all([first.renew(), second.renew()]);
  // Their own timers too, over two more lifetimes, while both keep calling.
  const until = Date.now() + LIFETIME_SECONDS * 1000 * 2;
  while (Date.now() < until) {
    await Promise.all([first.call('users.profile'), second.call('users.profile', {}, { transport: 'rest' })]);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(ended).toEqual([]);
  expect(first.signedIn && second.signedIn).toBe(true);
  const stored = JSON.parse(storage.items.get('hyperlocal.session')!);
  const refreshed = await app.rest('POST', '/api/auth/refresh/', { body: { refresh: stored.refresh } });
  expect(refreshed.status).toBe(200);
});

test('when the service revokes the session (signed out elsewhere), then the client ends it with auth:ended and goes on anonymous', async () => {
  const user = await aUser(app);
  const storage = aStorage();
  const client = aClient({ storage });
  await client.login({ username: user.username, password: user.password });
  expect(await live(client)).toBe(true);
  const ended: string[] = [];
  client.on('auth:ended', ({ reason }) => ended.push(reason));

  const { refresh } = JSON.parse(storage.items.get('hyperlocal.session')!);
  expect((await app.rest('POST', '/api/auth/logout/', { body: { refresh } })).status).toBe(200);

  expect(await eventuallyTrue(() => ended.length > 0, 10_000)).toBe(true);
  expect(ended).toEqual(['revoked']);
  expect(client.signedIn).toBe(false);
  expect(storage.items.has('hyperlocal.session')).toBe(false);
  expect(await live(client)).toBe(true);
  await expect(client.call('users.profile')).rejects.toMatchObject({ status: 401 });
  expect((await client.call('users.get', { username: user.username })).username).toBe(user.username);
});

test('when a handshake is refused `unavailable` (the token could not be checked), then the client waits as told and connects again, still signed in', async () => {
  const user = await aUser(app);
  const client = aClient();
  await client.login({ username: user.username, password: user.password });
  expect(await live(client)).toBe(true);
  const ended: string[] = [];
  client.on('auth:ended', ({ reason }) => ended.push(reason));

  client.disconnect();
  failChecks = 1;
  const started = Date.now();
  client.connect();
  expect(await eventuallyTrue(() => failChecks === 0, 5000)).toBe(true);
  expect(client.status).toBe('connecting');
  expect(await live(client, 15_000)).toBe(true);
  // retry_after is 5 seconds (DATABASE_RETRY_AFTER_SECONDS).
  expect(Date.now() - started).toBeGreaterThanOrEqual(4500);
  expect(ended).toEqual([]);
  expect(client.signedIn).toBe(true);
  expect((await client.call('users.profile')).username).toBe(user.username);
});

test('when a handshake is refused `unauthorized` but the refresh token is good, then the client renews once and connects signed in', async () => {
  const user = await aUser(app);
  const storage = aStorage();
  // An access token the service never issued (another key), beside a good refresh token.
  const forged = jwt.sign({ sub: user.id, type: 'access', jti: 'forged' }, 'not-the-key', { expiresIn: 3600 });
  storage.setItem('hyperlocal.session', JSON.stringify({ access: forged, refresh: user.refresh, receivedAt: Date.now() }));
  const client = aClient({ storage });
  const ended: string[] = [];
  client.on('auth:ended', ({ reason }) => ended.push(reason));
  expect(await live(client)).toBe(true);
  expect(ended).toEqual([]);
  expect(client.signedIn).toBe(true);
  expect(JSON.parse(storage.items.get('hyperlocal.session')!).access).not.toBe(forged);
  expect((await client.call('users.profile')).username).toBe(user.username);
});

test('when the login is wrong, then login rejects with ApiError 401 and its body, and the client is not signed in', async () => {
  const user = await aUser(app);
  const client = aClient({ realtime: false });
  const err = await client.login({ username: user.username, password: 'not the password' }).catch((e) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect(err).toMatchObject({ status: 401, body: { error: 'Invalid credentials' } });
  expect(client.signedIn).toBe(false);
});

test('when the app signs out while a renewal is on its way, then the renewal\'s late answer does not sign it back in', async () => {
  const user = await aUser(app);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let refreshing!: () => void;
  const refreshSent = new Promise<void>((resolve) => (refreshing = resolve));
  // The refresh reaches the service and is answered; its answer is held back until the sign-out is done.
  const slowRefresh: typeof fetch = async (input, init) => {
    const answer = await fetch(input, init);
    if (String(input).includes('/api/auth/refresh/')) {
      refreshing();
      await held;
    }
    return answer;
  };
  const client = aClient({ realtime: false, fetch: slowRefresh });
  await client.login({ username: user.username, password: user.password });
  const renewal = client.renew().catch((err: unknown) => err);
  await refreshSent;
  await client.logout();
  release();
  expect(await renewal).toMatchObject({ status: 401 });
  expect(client.signedIn).toBe(false);
});
