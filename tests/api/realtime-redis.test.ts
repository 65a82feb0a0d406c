import crypto from 'node:crypto';
import { locationAudience } from '../../src/realtime/rooms.js';
import { domainEvents } from '../../src/core/events.js';
import { sql } from '../helpers/sql.js';
import { jest } from '@jest/globals';
import { describeWithRedis, nextEvent, noEvent, startTestApp, unique, type TestApp, eventually } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { aNotification } from '../builders/notifications.js';

/**
 * Two nodes of the service sharing one database and one Redis. Node B is loaded in an isolated module
 * registry: its own platform, its own domain-event bus and its own Socket.IO server, exactly as if it
 * ran in another process. An event published on node A can reach B's sockets only through Redis.
 */
let nodeA: TestApp;
let nodeB: TestApp;
/** Nodes of one deployment sign and verify tokens with the same key. */
const cluster = { JWT_SECRET: `cluster-secret-${crypto.randomUUID()}` };
const ADMIN_EMAIL = `${unique('admin')}@example.test`;
const ADMIN_PASSWORD = 'admin-password-123';

describeWithRedis('several nodes sharing REDIS_URL', () => {
  beforeAll(async () => {
    nodeA = await startTestApp({ ...cluster, ADMIN_EMAIL, ADMIN_PASSWORD });
    await jest.isolateModulesAsync(async () => {
      const isolated = await import('../helpers/test-app.js');
      nodeB = await isolated.startTestApp(cluster);
    });
  });
  afterAll(async () => {
    await nodeB?.stop();
    await nodeA?.stop();
  });

  test('when a notification is created on node A, then the recipient’s socket on node B receives it, and nobody else’s', async () => {
    const alice = await aUser(nodeA);
    const bob = await aUser(nodeA);
    const onB = await nodeB.socket(alice.token);
    const onA = await nodeA.socket(alice.token);
    const bobOnB = await nodeB.socket(bob.token);
    const heardOnB = nextEvent(onB, 'notification:created');
    const heardOnA = nextEvent(onA, 'notification:created');
    const bobHearsNothing = noEvent(bobOnB, 'notification:created', 1000);

    const created = await aNotification(nodeA, alice.id, { message: 'from node A' });

    expect(await heardOnB).toEqual(created);
    expect(await heardOnA).toEqual(created);
    await bobHearsNothing;
  });

  test('when a user marks a notification read through node B, then its socket on node A gets notification:updated', async () => {
    const alice = await aUser(nodeA);
    const n = await aNotification(nodeA, alice.id);
    const onA = await nodeA.socket(alice.token);
    const updated = nextEvent(onA, 'notification:updated');
    const res = await nodeB.rest('PATCH', `/api/notifications/${n.id}/`, { token: alice.token, body: { is_read: true } });
    expect(res.status).toBe(200);
    expect(await updated).toMatchObject({ id: n.id, is_read: true });
  });

  test("when a user's location changes through node A, then its socket on node B moves to the new location room", async () => {
    const alice = await aUser(nodeA);
    const onB = await nodeB.socket(alice.token);
    const res = await nodeA.rest('POST', '/api/users/update-location/', { token: alice.token, body: { country: 'Cluster', city: `Node ${Date.now()}` } });
    expect(res.status).toBe(200);
    // The move reaches node B through Redis: probe the room until B's socket hears it.
    const locationId: string = res.body.location.id;
    expect(await eventually(() => hears(nodeA, onB, locationId))).toBe(true);
    expect(await hears(nodeA, onB, locationId)).toBe(true);
  });

  test("when an admin changes a user's rights through node A, then the caller cached on node B is checked again", async () => {
    const admin = await nodeA.rest('POST', '/api/auth/login/', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    const moderator = await aUser(nodeA);
    const onB = await nodeB.socket(moderator.token);
    const analytics = () => onB.timeout(5000).emitWithAck('locations.analytics', {});
    expect((await analytics()).status).toBe(403); // B has checked and cached the caller
    expect((await nodeA.rest('PATCH', `/api/admin/users/${moderator.username}/`, { token: admin.body.access_token, body: { is_staff: true } })).status).toBe(200);
    // Redis carries the change to B in about a millisecond; B's cache would otherwise hold for a minute.
    expect(await eventually(async () => (await analytics()).status === 200)).toBe(true);
  });

  test('when user.access_changed is published on node A for a token no longer accepted, then the socket on node B gets auth:expired and is disconnected', async () => {
    const alice = await aUser(nodeA);
    const onB = await nodeB.socket(alice.token);
    expect(await onB.timeout(5000).emitWithAck('users.profile', {})).toMatchObject({ status: 200 });
    const expired = nextEvent(onB, 'auth:expired');
    const gone = nextEvent(onB, 'disconnect');
    await sql('UPDATE users SET is_active = false WHERE id = $1', [alice.id]);
    domainEvents.publish('user.access_changed', { userId: alice.id }); // node A's bus (this module registry)
    await expired;
    expect(await gone).toBe('io server disconnect');
  });

  test('when one node of the cluster shuts down, then only its own sockets are closed: sockets on the other nodes stay connected', async () => {
    const alice = await aUser(nodeA);
    const onA = await nodeA.socket(alice.token);
    let nodeC!: TestApp;
    await jest.isolateModulesAsync(async () => {
      const isolated = await import('../helpers/test-app.js');
      nodeC = await isolated.startTestApp(cluster);
    });
    await nodeC.socket(alice.token);
    await nodeC.stop();
    // Published through Redis after C's shutdown broadcast (if there was one): when it arrives, that has too.
    const probe = nextEvent(onA, 'test:after-stop');
    nodeB.server.io.to(`user:${alice.id}`).emit('test:after-stop', 'still here');
    expect(await probe).toBe('still here');
    expect(onA.connected).toBe(true);
  });
});

/** Whether the socket hears an emit to the location's audience made on `from`. */
async function hears(from: TestApp, socket: import('socket.io-client').Socket, locationId: string): Promise<boolean> {
  const probe = crypto.randomUUID();
  return new Promise<boolean>((resolve) => {
    const onProbe = (p: string) => {
      if (p !== probe) return;
      clearTimeout(timer);
      socket.off('test:probe', onProbe);
      resolve(true);
    };
    const timer = setTimeout(() => {
      socket.off('test:probe', onProbe);
      resolve(false);
    }, 300);
    socket.on('test:probe', onProbe);
    from.server.io.to(locationAudience(locationId)).emit('test:probe', probe);
  });
}

