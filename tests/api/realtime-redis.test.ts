import crypto from 'node:crypto';
import { locationAudience } from '../../src/realtime/event-routes.js';
import { jest } from '@jest/globals';
import { describeWithRedis, nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
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

describeWithRedis('several nodes sharing REDIS_URL', () => {
  beforeAll(async () => {
    nodeA = await startTestApp(cluster);
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
    await new Promise((r) => setTimeout(r, 300));
    const probe = nextEvent(onB, 'test:probe');
    nodeA.server.io.to(locationAudience(res.body.location.id)).emit('test:probe', 'hello room');
    expect(await probe).toBe('hello room');
  });
});
