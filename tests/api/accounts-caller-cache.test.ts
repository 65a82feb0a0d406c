import { isDeepStrictEqual } from 'node:util';
import crypto from 'node:crypto';
import { aUser } from '../builders/users.js';
import { sql } from '../helpers/sql.js';
import { describeWithRedis, eventually, startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { startCluster, type TestCluster, CLUSTER_START_TIMEOUT_MS } from '../helpers/cluster.js';
import { startTcpProxy, targetOf, type TcpProxy } from '../helpers/tcp-proxy.js';
import { accessReads, accessUserCache, signAccessToken } from '../../src/modules/accounts/tokens.js';

/**
 * A REST caller seen lately is checked without a database read (accessUserCache), and every change of its
 * access made through the service is seen by the very next request: on the node that made it at once, on the
 * other nodes as soon as Redis carries the announcement. While Redis is away the cache is not used.
 */
const INVALID_TOKEN = { detail: 'Given token not valid for any token type' };
const FORBIDDEN = { detail: 'You do not have permission to perform this action.' };
const ADMIN_EMAIL = `${unique('admin')}@example.test`;
const ADMIN_PASSWORD = 'admin-password-123';
const profile = (app: TestApp, token: string) => app.rest('GET', '/api/users/profile/', { token });
const analytics = (app: TestApp, token: string) => app.rest('GET', '/api/locations/locations/analytics/', { token });

describe('one node', () => {
  let app: TestApp;
  let adminToken: string;
  beforeAll(async () => {
    app = await startTestApp({ ADMIN_EMAIL, ADMIN_PASSWORD });
    adminToken = (await app.rest('POST', '/api/auth/login/', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body.access_token;
  });
  afterAll(async () => {
    await app.stop();
  });

  test('when a caller calls again, then its check reads nothing; a token of another session of the same user is read once', async () => {
    const alice = await aUser(app);
    expect((await profile(app, alice.token)).status).toBe(200);
    const before = { ...accessReads, hits: accessUserCache.counts.hits };
    for (let i = 0; i < 3; i++) expect(await profile(app, alice.token)).toMatchObject({ status: 200, body: { id: alice.id } });
    expect({ reads: accessReads.reads - before.reads, hits: accessUserCache.counts.hits - before.hits }).toEqual({ reads: 0, hits: 3 });

    const other = (await app.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } })).body.access_token;
    expect((await profile(app, other)).status).toBe(200);
    expect(accessReads.reads - before.reads).toBe(1);
  });

  test('when a cached caller logs out, then its access token is refused by the next request, and its other session goes on', async () => {
    const alice = await aUser(app);
    const other = (await app.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } })).body;
    expect((await profile(app, alice.token)).status).toBe(200);
    expect((await profile(app, other.access_token)).status).toBe(200);
    expect((await app.rest('POST', '/api/auth/logout/', { body: { refresh: alice.refresh } })).status).toBe(200);
    expect(await profile(app, alice.token)).toMatchObject({ status: 401, body: INVALID_TOKEN });
    expect((await profile(app, other.access_token)).status).toBe(200);
  });

  test('when an administrator grants and takes back staff rights, then the cached caller has them at its next request and loses them at the next', async () => {
    const moderator = await aUser(app);
    expect(await analytics(app, moderator.token)).toMatchObject({ status: 403, body: FORBIDDEN });
    expect((await app.rest('PATCH', `/api/admin/users/${moderator.username}/`, { token: adminToken, body: { is_staff: true } })).status).toBe(200);
    expect((await analytics(app, moderator.token)).status).toBe(200);
    expect((await app.rest('PATCH', `/api/admin/users/${moderator.username}/`, { token: adminToken, body: { is_staff: false } })).status).toBe(200);
    expect(await analytics(app, moderator.token)).toMatchObject({ status: 403, body: FORBIDDEN });
  });

  test('when a cached caller is deactivated, then its token is refused by the next request', async () => {
    const bob = await aUser(app);
    expect((await profile(app, bob.token)).status).toBe(200);
    expect((await app.rest('PATCH', `/api/admin/users/${bob.username}/`, { token: adminToken, body: { is_active: false } })).status).toBe(200);
    expect(await profile(app, bob.token)).toMatchObject({ status: 401, body: INVALID_TOKEN });
  });

  test('when a refused token comes back, then it stays refused; only a user that exists is kept, so an unknown one is read each time', async () => {
    const carol = await aUser(app);
    await app.rest('POST', '/api/auth/logout/', { body: { refresh: carol.refresh } });
    for (let i = 0; i < 3; i++) expect(await profile(app, carol.token)).toMatchObject({ status: 401, body: INVALID_TOKEN });

    const nobody = signAccessToken(crypto.randomUUID());
    const before = accessReads.reads;
    expect((await profile(app, nobody)).status).toBe(401);
    expect((await profile(app, nobody)).status).toBe(401);
    expect(accessReads.reads - before).toBe(2);
  });
});

describeWithRedis('two nodes and Redis', () => {
  let proxy: TcpProxy;
  let cluster: TestCluster;
  let adminToken: string;
  beforeAll(async () => {
    // Both nodes reach Redis through a proxy that the last test cuts.
    proxy = await startTcpProxy(targetOf(process.env.REDIS_URL!));
    cluster = await startCluster({ REDIS_URL: proxy.through(process.env.REDIS_URL!) }, { ADMIN_EMAIL, ADMIN_PASSWORD });
    adminToken = (await cluster.a.rest('POST', '/api/auth/login/', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body.access_token;
  }, CLUSTER_START_TIMEOUT_MS);
  afterAll(async () => {
    await proxy.restore();
    await cluster?.stop();
    await proxy.close();
  });

  test('when a caller cached on node B logs out through node A, then node B refuses its token as soon as Redis carries the news', async () => {
    const { a, b } = cluster;
    const alice = await aUser(a);
    expect((await profile(b, alice.token)).status).toBe(200);
    expect((await profile(b, alice.token)).status).toBe(200);
    expect((await a.rest('POST', '/api/auth/logout/', { body: { refresh: alice.refresh } })).status).toBe(200);
    // Without the announcement node B would answer from its cache for a minute.
    expect(await eventually(async () => (await profile(b, alice.token)).status === 401, 2000)).toBe(true);
  });

  test('when node A grants staff rights, then node B\'s cached caller has them as soon as Redis carries the news', async () => {
    const { a, b } = cluster;
    const moderator = await aUser(a);
    expect((await analytics(b, moderator.token)).status).toBe(403);
    expect((await a.rest('PATCH', `/api/admin/users/${moderator.username}/`, { token: adminToken, body: { is_staff: true } })).status).toBe(200);
    expect(await eventually(async () => (await analytics(b, moderator.token)).status === 200, 2000)).toBe(true);
  });

  test('when Redis is away, then no node answers from its cache: a change it cannot hear of is seen at once; when it is back, announcements carry again both ways', async () => {
    const { a, b } = cluster;
    const dave = await aUser(b);
    expect((await profile(b, dave.token)).status).toBe(200);
    await proxy.cut();
    try {
      // Made behind the service's back, as a change announced on another node would be lost now.
      await sql('UPDATE users SET is_active = false WHERE id = $1', [dave.id]);
      expect(await eventually(async () => (await profile(b, dave.token)).status === 401, 5000)).toBe(true);
      await sql('UPDATE users SET is_active = true WHERE id = $1', [dave.id]);
      expect((await profile(b, dave.token)).status).toBe(200);
    } finally {
      await proxy.restore();
    }
    // Every connection is back (a node stopped while one still reconnects would leave it retrying against the
    // closed proxy), and a logout through either node reaches the other's cache.
    const healthy = async (node: TestApp) => isDeepStrictEqual((await node.rest('GET', '/health')).body, { status: 'ok', database: 'ok', redis: 'ok' });
    expect(await eventually(async () => (await healthy(a)) && (await healthy(b)), 15000)).toBe(true);
    for (const [through, cached] of [[a, b], [b, a]] as const) {
      const erin = await aUser(through);
      expect(
        await eventually(async () => {
          expect((await profile(cached, erin.token)).status).toBe(200);
          const session = (await through.rest('POST', '/api/auth/login/', { body: { username: erin.username, password: erin.password } })).body;
          expect((await profile(cached, session.access_token)).status).toBe(200);
          await through.rest('POST', '/api/auth/logout/', { body: { refresh: session.refresh_token } });
          return eventually(async () => (await profile(cached, session.access_token)).status === 401, 1000);
        }, 8000), // at most 8 logins: the account's login budget is 10 per 5 minutes
      ).toBe(true);
    }
  });
});
