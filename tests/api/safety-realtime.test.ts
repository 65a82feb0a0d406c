import type { Socket } from 'socket.io-client';
import { describeWithRedis, eventually, nextEvent, noEvent, type TestApp } from '../helpers/test-app.js';
import { hears, startCluster, type TestCluster, CLUSTER_START_TIMEOUT_MS } from '../helpers/cluster.js';
import type { TestUser } from '../builders/users.js';
import { aCity, aResidentAt } from '../builders/feeds.js';
import { aComment, aPost } from '../builders/posts.js';
import { aBlock, aMute } from '../builders/safety.js';
import { hidingRoom, residentsRoom } from '../../src/realtime/rooms.js';

/**
 * Live pushes of a blocked or muted person never reach the sockets that hide them, on two nodes under both Redis
 * adapters: every socket listens on node B, every write goes through node A.
 */
describe.each(['classic', 'sharded'])('live pushes with REDIS_ADAPTER=%s', (adapter) => {
  describeWithRedis('', () => {
    let c: TestCluster;
    beforeAll(async () => {
      c = await startCluster({ REDIS_ADAPTER: adapter, RATE_LIMITS: 'off' });
    }, CLUSTER_START_TIMEOUT_MS);
    afterAll(async () => {
      await c?.stop();
    });

    /** Three neighbours of one place, each with a socket on node B that hears the place's posts. */
    async function aStreetOnNodeB() {
      const city = aCity();
      const people = [await aResidentAt(c.a, city), await aResidentAt(c.a, city), await aResidentAt(c.a, city)];
      const sockets: Socket[] = [];
      for (const person of people) {
        const socket = await c.b.socket(person.token);
        expect(await eventually(() => hears(c.a, socket, residentsRoom(person.locationId)))).toBe(true);
        sockets.push(socket);
      }
      const [alice, bob, carol] = people;
      const [aliceSocket, bobSocket, carolSocket] = sockets;
      return { alice, bob, carol, aliceSocket, bobSocket, carolSocket };
    }

    /** Waits until `socket` (of a viewer) hides, or no longer hides, `author` on every node. */
    const hiding = (from: TestApp, socket: Socket, author: TestUser, hidden = true) => eventually(async () => (await hears(from, socket, hidingRoom(author.id))) === hidden);

    test('when alice blocked bob before connecting, then neither hears the other\'s new posts; carol hears both', async () => {
      const city = aCity();
      const [alice, bob, carol] = [await aResidentAt(c.a, city), await aResidentAt(c.a, city), await aResidentAt(c.a, city)];
      await aBlock(c.a, alice, bob);
      const sockets = [await c.b.socket(alice.token), await c.b.socket(bob.token), await c.b.socket(carol.token)];
      for (const [i, s] of sockets.entries()) expect(await eventually(() => hears(c.a, s, residentsRoom([alice, bob, carol][i].locationId)))).toBe(true);
      const [aliceSocket, bobSocket, carolSocket] = sockets;

      const quietForAlice = noEvent(aliceSocket, 'post:created', 1000);
      const toCarol = nextEvent(carolSocket, 'post:created', 3000);
      const post = await aPost(c.a, bob);
      expect((await toCarol).id).toBe(post.id);
      await quietForAlice;

      const quietForBob = noEvent(bobSocket, 'post:created', 1000);
      const toCarolAgain = nextEvent(carolSocket, 'post:created', 3000);
      await aPost(c.a, alice);
      await toCarolAgain;
      await quietForBob;
    });

    test('when alice blocks bob while both are connected, then his posts stop reaching her and hers him; after unblocking they reach again', async () => {
      const { alice, bob, aliceSocket, bobSocket, carolSocket } = await aStreetOnNodeB();
      await aBlock(c.a, alice, bob);
      expect(await hiding(c.a, aliceSocket, bob)).toBe(true);
      expect(await hiding(c.a, bobSocket, alice)).toBe(true);
      const quietForAlice = noEvent(aliceSocket, 'post:created', 1000);
      const toCarol = nextEvent(carolSocket, 'post:created', 3000);
      await aPost(c.a, bob);
      await toCarol;
      await quietForAlice;

      await c.a.rest('DELETE', `/api/safety/blocks/${bob.id}/`, { token: alice.token });
      expect(await hiding(c.a, aliceSocket, bob, false)).toBe(true);
      expect(await hiding(c.a, bobSocket, alice, false)).toBe(true);
      const toAlice = nextEvent(aliceSocket, 'post:created', 3000);
      const post = await aPost(c.a, bob);
      expect((await toAlice).id).toBe(post.id);
    });

    test('when alice mutes bob while connected, then his posts stop reaching her, hers still reach him, and a mute kept after unblocking keeps hiding him', async () => {
      const { alice, bob, aliceSocket, bobSocket } = await aStreetOnNodeB();
      await aMute(c.a, alice, bob);
      await aBlock(c.a, alice, bob);
      await c.a.rest('DELETE', `/api/safety/blocks/${bob.id}/`, { token: alice.token });
      expect(await hiding(c.a, bobSocket, alice, false)).toBe(true);
      expect(await hears(c.a, aliceSocket, hidingRoom(bob.id))).toBe(true);

      const quietForAlice = noEvent(aliceSocket, 'post:created', 1000);
      const toBob = nextEvent(bobSocket, 'post:created', 3000);
      await aPost(c.a, bob);
      await quietForAlice;
      const byAlice = await aPost(c.a, alice);
      // Bob's own post reached him first; wait for alice's.
      let seen = await toBob;
      while (seen.id !== byAlice.id) seen = await nextEvent(bobSocket, 'post:created', 3000);
    });

    test('when alice blocked bob, then his comments on a post she watches do not reach her; carol watching hears them', async () => {
      const { alice, bob, carol, aliceSocket, carolSocket } = await aStreetOnNodeB();
      const post = await aPost(c.a, carol);
      for (const s of [aliceSocket, carolSocket]) expect(await s.timeout(5000).emitWithAck('subscribe', { channel: 'post', id: post.id })).toMatchObject({ status: 200 });
      await aBlock(c.a, alice, bob);
      expect(await hiding(c.a, aliceSocket, bob)).toBe(true);
      const quietForAlice = noEvent(aliceSocket, 'comment:created', 1000);
      const toCarol = nextEvent(carolSocket, 'comment:created', 3000);
      const comment = await aComment(c.a, bob, post.id);
      expect((await toCarol).id).toBe(comment.id);
      await quietForAlice;
    });
  });
});
