import { isDeepStrictEqual } from 'node:util';
import { jest } from '@jest/globals';
import type { Socket } from 'socket.io-client';
import { platform } from '../../src/platform/index.js';
import { domainEvents } from '../../src/core/events.js';
import { sql } from '../helpers/sql.js';
import { describeWithRedis, eventually, nextEvent, type TestApp } from '../helpers/test-app.js';
import { startCluster, type TestCluster, CLUSTER_START_TIMEOUT_MS } from '../helpers/cluster.js';
import { startTcpProxy, targetOf, type TcpProxy } from '../helpers/tcp-proxy.js';
import { aResident } from '../builders/locations.js';
import { aNotification } from '../builders/notifications.js';

/**
 * Redis going away, played by cutting a TCP proxy between both nodes and the real (shared) Redis: no node
 * crashes, REST keeps answering (rate limits count in memory, with a warning), sockets keep hearing what
 * their own node emits, and cross-node delivery resumes once Redis is back. Under both adapters.
 */
for (const adapter of ['classic', 'sharded'] as const) {
  describeWithRedis(`a Redis outage (REDIS_ADAPTER=${adapter})`, () => {
    let proxy: TcpProxy;
    let cluster: TestCluster;
    beforeAll(async () => {
      proxy = await startTcpProxy(targetOf(process.env.REDIS_URL!));
      cluster = await startCluster({ REDIS_URL: proxy.through(process.env.REDIS_URL!), REDIS_ADAPTER: adapter });
    }, CLUSTER_START_TIMEOUT_MS);
    afterAll(async () => {
      await proxy.restore();
      await cluster?.stop();
      await proxy.close();
    });

    /** Whether a notification created on node A now reaches `socket` (on node B) within `ms`. */
    const crossNodeDelivery = async (recipientId: string, socket: Socket, ms = 500) => {
      const heard = nextEvent(socket, 'notification:created', ms).then(() => true, () => false);
      await aNotification(cluster.a, recipientId);
      return heard;
    };

    test('when Redis goes away and comes back, then REST keeps answering, local pushes go on, and cross-node delivery resumes', async () => {
      const { a, b } = cluster;
      const alice = await aResident(a);
      const onA = await a.socket(alice.token);
      const onB = await b.socket(alice.token);
      expect(await eventually(() => crossNodeDelivery(alice.id, onB), 5000)).toBe(true);

      const warn = jest.spyOn(platform.log, 'warn');
      try {
        await proxy.cut();
        await eventually(async () => platform.redis!.status !== 'ready', 5000);

        // REST on both nodes, including rate-limited operations (counted in memory now, with a warning).
        for (const node of [a, b] as TestApp[]) {
          expect((await node.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } })).status).toBe(200);
          expect((await node.rest('GET', '/api/users/profile/', { token: alice.token })).status).toBe(200);
        }
        expect(warn.mock.calls.some((call) => typeof call[0] === 'string' && call[0].includes('rate limits count in this node'))).toBe(true);
        expect((await a.rest('GET', '/health')).body).toEqual({ status: 'degraded', database: 'ok', redis: 'unavailable' });

        // The node's own sockets still hear what it emits; a publish to the other node fails without a crash.
        const local = nextEvent(onA, 'notification:created');
        const created = await aNotification(a, alice.id, { message: 'during the outage' });
        expect(await local).toEqual(created);
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(onA.connected && onB.connected).toBe(true);
      } finally {
        warn.mockRestore();
        await proxy.restore();
      }

      expect(await eventually(() => crossNodeDelivery(alice.id, onB), 15000)).toBe(true);
      // Each Redis connection (the node's own, the adapter's two) reconnects on its own back-off (up to 2 s apart):
      // delivery through the adapter's may resume before the one /health reports on.
      const healthy = async () => isDeepStrictEqual((await a.rest('GET', '/health')).body, { status: 'ok', database: 'ok', redis: 'ok' });
      expect(await eventually(healthy, 10000)).toBe(true);
    });

    test('when a user’s rights change while Redis is away, then the other node, which missed the message, checks its cached caller again once Redis is back', async () => {
      const { a, b } = cluster;
      const moderator = await aResident(a);
      const onB = await b.socket(moderator.token);
      const analytics = () => onB.timeout(5000).emitWithAck('locations.analytics', {});
      expect((await analytics()).status).toBe(403); // node B has checked and cached the caller

      await proxy.cut();
      try {
        await eventually(async () => platform.redis!.status !== 'ready', 5000);
        await sql('UPDATE users SET is_staff = true WHERE id = $1', [moderator.id]);
        domainEvents.publish('user.access_changed', { userId: moderator.id }); // node A's bus: lost on its way to B
        expect((await analytics()).status).toBe(403); // B still serves its cached caller (for up to a minute)
      } finally {
        await proxy.restore();
      }
      // Well within the cache's minute: B dropped its cached callers when its subscriber came back.
      expect(await eventually(async () => (await analytics()).status === 200, 15000)).toBe(true);
    });
  });
}
