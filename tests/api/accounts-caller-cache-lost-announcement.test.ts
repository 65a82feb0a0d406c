import { aUser } from '../builders/users.js';
import { describeWithRedis, eventually, nextEvent, unique, type TestApp } from '../helpers/test-app.js';
import { startCluster, type TestCluster, CLUSTER_START_TIMEOUT_MS } from '../helpers/cluster.js';
import { sql } from '../helpers/sql.js';
import { ACCESS_CHANGE_POLL_MS } from '../../src/realtime/access-change-poll.js';
import type { NodeMessage } from '../../src/realtime/node.js';

/**
 * A change of access announced by node A and lost on the way (Redis dropped it, or A died between commit and
 * publish) still reaches node B within a few seconds: B reads the change from the database. Node A here sends
 * every other node message but loses each `caller_changed`, so B can learn of a change only from the database;
 * without that, B's cache would answer for the cached caller for a minute.
 */
const ADMIN_EMAIL = `${unique('admin')}@example.test`;
const ADMIN_PASSWORD = 'admin-password-123';
/** One poll interval, one more for a poll that began just before the commit, and the reads themselves. */
const BOUND_MS = 2 * ACCESS_CHANGE_POLL_MS + 1000;
const profile = (app: TestApp, token: string) => app.rest('GET', '/api/users/profile/', { token });

describeWithRedis('two nodes whose caller_changed announcements are lost', () => {
  let cluster: TestCluster;
  let adminToken: string;
  const lost: string[] = [];
  beforeAll(async () => {
    const loseCallerChanges = (message: NodeMessage, send: (message: NodeMessage) => void) => {
      if (message.kind === 'caller_changed') lost.push(message.userId);
      else send(message);
    };
    cluster = await startCluster({}, { ADMIN_EMAIL, ADMIN_PASSWORD }, { realtimeA: { sendToOtherNodes: loseCallerChanges } });
    adminToken = (await cluster.a.rest('POST', '/api/auth/login/', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body.access_token;
  }, CLUSTER_START_TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.stop();
  });

  /** Whether node B answers the token 401 within BOUND_MS (polled: each request is one more chance). */
  const refusedByBInTime = (token: string) => eventually(async () => (await profile(cluster.b, token)).status === 401, BOUND_MS);

  test('when a caller cached on node B logs out through node A and the announcement is lost, then node B refuses its token within a few seconds', async () => {
    const { a, b } = cluster;
    const alice = await aUser(a);
    expect((await profile(b, alice.token)).status).toBe(200);
    expect((await profile(b, alice.token)).status).toBe(200);
    expect((await a.rest('POST', '/api/auth/logout/', { body: { refresh: alice.refresh } })).status).toBe(200);
    expect(lost).toContain(alice.id);
    expect(await refusedByBInTime(alice.token)).toBe(true);
  });

  test('when a cached caller is deactivated through node A and the announcement is lost, then node B refuses its token within a few seconds', async () => {
    const { a, b } = cluster;
    const bob = await aUser(a);
    expect((await profile(b, bob.token)).status).toBe(200);
    expect((await a.rest('PATCH', `/api/admin/users/${bob.username}/`, { token: adminToken, body: { is_active: false } })).status).toBe(200);
    expect(lost).toContain(bob.id);
    expect(await refusedByBInTime(bob.token)).toBe(true);
  });

  test('when a caller with a live socket on node B logs out through node A and the announcement is lost, then that socket is told auth:expired within a few seconds', async () => {
    const { a, b } = cluster;
    const carol = await aUser(a);
    const socket = await b.socket(carol.token);
    expect(await socket.timeout(5000).emitWithAck('users.profile', {})).toMatchObject({ status: 200 });
    const expired = nextEvent(socket, 'auth:expired', BOUND_MS);
    expect((await a.rest('POST', '/api/auth/logout/', { body: { refresh: carol.refresh } })).status).toBe(200);
    expect(lost).toContain(carol.id);
    await expect(expired).resolves.toBeDefined();
  });

  test('when a change\'s transaction commits seconds after it wrote its row, then node B still applies it (the poll looks back)', async () => {
    const { b } = cluster;
    const erin = await aUser(cluster.a);
    expect((await profile(b, erin.token)).status).toBe(200);
    // What a slow transaction leaves behind: the user deactivated, and a row stamped seconds before it committed.
    await sql('UPDATE users SET is_active = false WHERE id = $1', [erin.id]);
    await sql(`INSERT INTO access_changes (user_id, changed_at) VALUES ($1, clock_timestamp() - interval '5 seconds')`, [erin.id]);
    expect(await refusedByBInTime(erin.token)).toBe(true);
  });
});
