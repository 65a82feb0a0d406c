import { jest } from '@jest/globals';
import { ApiError, createClient, type HyperlocalClient, type OperationName, type StorageLike } from '@hyperlocal/client';
import { operations } from '../../src/registry.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { adminEnv } from '../builders/locations.js';
import type { TestUser } from '../builders/users.js';
import { eventuallyTrue } from '../helpers/client.js';
import { aReadWorld, reads, type ReadWorld } from '../helpers/operation-reads.js';
import { writes } from '../helpers/operation-writes.js';
import { PNG_1X1 } from '../helpers/images.js';
import { aNeighbourhood } from '../builders/posts.js';

/**
 * Every operation of the table, called through the client's `call()` over the socket, answers what REST answers (the
 * REST side made by hand from the operation's method and path, not by the client). Reads are compared on one state;
 * each write on a case of its own per transport, with the ids, times, tokens and generated names of its case set
 * aside. Files are the one thing the socket cannot carry: calls with one go over REST, and that is checked too.
 */
jest.setTimeout(300_000);

const ADMIN = adminEnv();
let app: TestApp;
let admin: TestUser;
beforeAll(async () => {
  app = await startTestApp({ ...ADMIN, RATE_LIMITS: 'off', WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: 'true' });
  const login = await app.rest('POST', '/api/auth/login/', { body: { username: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD } });
  admin = { id: login.body.user.id, username: login.body.user.username, email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD, token: login.body.access_token, refresh: login.body.refresh_token, body: login.body.user };
});
const clients = new Map<string, HyperlocalClient>();
afterAll(async () => {
  for (const client of clients.values()) client.close();
  await app?.stop();
});

type Outcome = { ok: true; body: unknown } | { ok: false; status: number; body: unknown };

/** A live client signed in as `user` (its session handed over as an app restarting with stored tokens would), or anonymous. */
async function clientFor(user: TestUser | null): Promise<HyperlocalClient> {
  const key = user?.id ?? 'anonymous';
  let client = clients.get(key);
  if (!client) {
    const items = new Map<string, string>();
    if (user) items.set('hyperlocal.session', JSON.stringify({ access: user.token, refresh: user.refresh, receivedAt: Date.now() }));
    const storage: StorageLike = { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v), removeItem: (k) => void items.delete(k) };
    client = createClient({ baseUrl: app.url, transports: ['websocket'], storage, retry: { maxRetries: 0 } });
    clients.set(key, client);
  }
  const ready = client;
  expect(await eventuallyTrue(() => ready.status === 'live', 10_000)).toBe(true);
  return client;
}

async function overSocket(name: string, as: TestUser | null, input: Record<string, unknown>): Promise<Outcome> {
  const client = await clientFor(as);
  try {
    return { ok: true, body: await client.call(name as OperationName, input as never, { transport: 'socket' }) };
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, status: err.status, body: err.body };
    throw err;
  }
}

/** The same call as a REST client would write it from the OpenAPI document: path parameters, then query or body. */
async function overRest(name: string, as: TestUser | null, input: Record<string, unknown>): Promise<Outcome> {
  const op = operations.find((o) => o.name === name)!;
  const rest = { ...input };
  const path = op.path.replace(/\{(\w+)\}/g, (_m, key: string) => {
    const value = rest[key];
    delete rest[key];
    return encodeURIComponent(String(value));
  });
  const res = await app.rest(op.method, path, { token: as?.token, ...(op.method === 'GET' ? { query: rest } : { body: rest }) });
  return res.status < 400 ? { ok: true, body: res.status === 204 ? null : res.body } : { ok: false, status: res.status, body: res.body };
}

/** Two cases' answers side by side: their own ids, times, tokens and generated names made alike. */
function asCase(outcome: Outcome): unknown {
  const ids = new Map<string, string>();
  const text = JSON.stringify(outcome)
    .replace(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g, '<jwt>')
    .replace(/whsec_[A-Za-z0-9+/=]+/g, '<webhook secret>')
    .replace(/"msg_[\w-]+"/g, '"<webhook event id>"')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, (id) => {
      if (!ids.has(id)) ids.set(id, `<id${ids.size}>`);
      return ids.get(id)!;
    })
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>')
    // unique() names: a prefix and ten hex digits (users, places, shops, clubs).
    .replace(/(?<=[A-Za-z ])[0-9a-f]{10}(?![0-9a-f])/g, '<name>')
    // Positions of fresh random spots.
    .replace(/"(latitude|longitude|center_latitude|center_longitude)":-?[\d.]+/g, '"$1":"<coordinate>"');
  return JSON.parse(text);
}

const isRead = (name: string) => operations.find((o) => o.name === name)!.method === 'GET';

test('when the table is listed, then every operation has a case here: a read or a write', () => {
  const covered = new Set([...Object.keys(reads), ...Object.keys(writes)]);
  expect(operations.map((o) => o.name).filter((name) => !covered.has(name))).toEqual([]);
  expect([...covered].filter((name) => !operations.some((o) => o.name === name))).toEqual([]);
  expect(Object.keys(reads).every(isRead) && Object.keys(writes).every((name) => !isRead(name))).toBe(true);
});

describe('reads', () => {
  let world: ReadWorld;
  beforeAll(async () => {
    world = await aReadWorld(app, admin);
  });

  test.each(Object.keys(reads))('when %s is called through call() over the socket, then the answer is REST\'s', async (name) => {
    const { as, input } = reads[name](world);
    const rest = await overRest(name, as, input);
    const socket = await overSocket(name, as, input);
    // A sync cursor and an export's `exported_at` mark the instant of their answer: two answers, two instants.
    const stamp = ({ 'realtime.sync': 'cursor', 'users.profile_export': 'exported_at' } as Record<string, string>)[name];
    const instant = (o: Outcome) => (stamp && o.ok ? { ...o, body: { ...(o.body as object), [stamp]: '<instant>' } } : o);
    expect({ name, ...instant(socket) }).toEqual({ name, ...instant(rest) });
    expect(rest.ok).toBe(true);
  });
});

describe('writes', () => {
  test.each(Object.keys(writes))('when %s is called through call() over the socket, then the answer is REST\'s for the same case', async (name) => {
    const restCase = await writes[name](app, admin);
    const socketCase = await writes[name](app, admin);
    const rest = await overRest(name, restCase.as, restCase.input);
    const socket = await overSocket(name, socketCase.as, socketCase.input);
    expect({ name, ...(asCase(socket) as object) }).toEqual({ name, ...(asCase(rest) as object) });
    // Each case is one that succeeds, but a confirmation needs the code a mail carried: its refusal is compared.
    expect({ name, ok: rest.ok }).toEqual({ name, ok: name !== 'accounts.password_reset_confirm' });
  });
});

describe('uploads', () => {
  const withFiles = operations.filter((o) => o.files?.length);

  test('when a call carries a file, then it cannot go over the socket (it has no files) and goes over REST', async () => {
    expect(withFiles.map((o) => o.name)).toContain('posts.create');
    const place = await aNeighbourhood(app);
    const client = await clientFor(place.founder);
    const photo = new Blob([PNG_1X1], { type: 'image/png' });
    for (const op of withFiles) {
      const input = { [op.files![0].name]: photo };
      await expect(client.call(op.name as OperationName, input as never, { transport: 'socket' })).rejects.toThrow('files go over REST only (the socket carries no files)');
    }
    const post = await client.call('posts.create', { post_type: 'image', content: 'The square at dusk', media: [photo] });
    expect(post.media).toHaveLength(1);
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/`)).body.media).toEqual(post.media);
  });
});
