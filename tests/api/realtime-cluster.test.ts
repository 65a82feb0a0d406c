import fs from 'node:fs/promises';
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { domainEvents, PendingEvents } from '../../src/core/events.js';
import { locationUpdated } from '../../src/modules/locations/location-events.js';
import { findLocation } from '../../src/modules/locations/locations.queries.js';
import { locationAudience } from '../../src/realtime/rooms.js';
import { channelRoom } from '../../src/core/channels.js';
import { describeWithRedis, eventually, nextEvent, noEvent, type TestApp } from '../helpers/test-app.js';
import { hears, startCluster, type TestCluster, CLUSTER_START_TIMEOUT_MS } from '../helpers/cluster.js';
import { aNotification } from '../builders/notifications.js';
import { aLocation, adminEnv, aResident, loginAdmin } from '../builders/locations.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { aShopWithProduct, anOrder } from '../builders/stores.js';
import { aComment, aNeighbourhood, aPoll, aPost } from '../builders/posts.js';
import { aCommunity, joinCommunity } from '../builders/communities.js';
import { announceExpiredPolls } from '../../src/modules/posts/poll-expiry.job.js';
import { sql } from '../helpers/sql.js';

const subscribeTo = (socket: Socket, channel: string, id: string) => socket.timeout(5000).emitWithAck('subscribe', { channel, id });

/**
 * Every event kind reaches the right sockets on the other node, under both adapters (REDIS_ADAPTER classic
 * and sharded). One row per kind: `arrange` sets up a listening socket on node B (and sockets that must stay
 * quiet), `act` makes it happen through node A. Modules that add an event kind add a row here.
 */
interface Arranged {
  /** The socket on node B that must hear `event`. */
  listener: Socket;
  event: string;
  /** Makes the event happen through node A; what it returns is passed to `check`. */
  act(): Promise<unknown>;
  check?(payload: any, acted: any): void | Promise<void>;
  /** Sockets (on either node) that must not hear `event`. */
  quiet?: Socket[];
}

interface CrossNodeCase {
  name: string;
  arrange(c: TestCluster & { admin: string }): Promise<Arranged>;
}

/**
 * Raise `location.updated` on node A the way the locations module does after a change (the test's modules
 * are node A's); answers the payload as it travels (JSON).
 */
async function announce(_from: TestApp, id: string) {
  const events = new PendingEvents();
  locationUpdated(events, (await findLocation(id))!);
  const [event] = [...(events as unknown as { events: Array<{ payload: { location: unknown } }> }).events];
  events.flush();
  return JSON.parse(JSON.stringify(event.payload.location));
}

/** After a session end: the socket was told and closed by the server. */
const endedBy = async (socket: Socket) => {
  if (socket.connected) expect(await nextEvent(socket, 'disconnect')).toBe('io server disconnect');
  expect(socket.connected).toBe(false);
};

async function latestResetCode(app: TestApp, email: string): Promise<string> {
  const dir = path.join(app.dataDir, 'outbox');
  const mails = await Promise.all((await fs.readdir(dir)).sort().map(async (f) => JSON.parse(await fs.readFile(path.join(dir, f), 'utf8'))));
  const mine = mails.filter((m) => m.to === email);
  return /\b(\d{6})\b/.exec(mine[mine.length - 1].text)![1];
}

export const CROSS_NODE_EVENTS: CrossNodeCase[] = [
  {
    name: 'notification:created reaches the recipient only',
    async arrange({ a, b }) {
      const [alice, bob] = [await aResident(a), await aResident(a)];
      return {
        listener: await b.socket(alice.token),
        event: 'notification:created',
        quiet: [await b.socket(bob.token)],
        act: () => aNotification(a, alice.id, { message: 'from node A' }),
        check: (payload, created) => expect(payload).toEqual(created),
      };
    },
  },
  {
    name: 'notification:updated reaches every device of the user',
    async arrange({ a, b }) {
      const alice = await aResident(a);
      const n = await aNotification(a, alice.id);
      return {
        listener: await b.socket(alice.token),
        event: 'notification:updated',
        act: () => a.rest('PATCH', `/api/notifications/${n.id}/`, { token: alice.token, body: { is_read: true } }),
        check: (payload) => expect(payload).toMatchObject({ id: n.id, is_read: true }),
      };
    },
  },
  {
    name: 'location:updated reaches the residents',
    async arrange({ a, b }) {
      const place = await aLocation(a);
      const [resident] = place.residents;
      const outsider = await aResident(a);
      const listener = await b.socket(resident.token);
      // The socket joins its residents' room right after connecting (a read of where its user lives).
      expect(await eventually(() => hears(a, listener, locationAudience(place.id)))).toBe(true);
      return {
        listener,
        event: 'location:updated',
        quiet: [await b.socket(outsider.token)],
        act: () => announce(a, place.id),
        check: (payload, location) => expect(payload).toEqual(location),
      };
    },
  },
  {
    name: 'location:updated reaches a channel subscription (an anonymous display)',
    async arrange({ a, b }) {
      const place = await aLocation(a);
      const display = await b.socket();
      expect(await display.timeout(5000).emitWithAck('subscribe', { channel: 'location', id: place.id })).toMatchObject({ status: 200 });
      return { listener: display, event: 'location:updated', quiet: [await b.socket()], act: () => announce(a, place.id), check: (payload, location) => expect(payload).toEqual(location) };
    },
  },
  {
    name: 'a location move made through A takes the socket on B to the new residents’ room',
    async arrange({ a, b }) {
      const [from, to] = [await aLocation(a), await aLocation(a)];
      const [mover] = from.residents;
      const listener = await b.socket(mover.token);
      expect(await eventually(() => hears(a, listener, locationAudience(from.id)))).toBe(true);
      return {
        listener,
        event: 'location:updated',
        act: async () => {
          const moved = await a.rest('POST', '/api/locations/locations/smart_update/', { token: mover.token, body: to.spot });
          expect(moved.body.location.id).toBe(to.id);
          expect(await eventually(() => hears(a, listener, locationAudience(to.id)))).toBe(true);
          expect(await hears(a, listener, locationAudience(from.id))).toBe(false);
          return announce(a, to.id);
        },
        check: (payload, location) => expect(payload).toEqual(location),
      };
    },
  },
  {
    name: 'channel.access_ended raised on A makes the socket on B leave that room, and only that one',
    async arrange({ a, b }) {
      const [place, other] = [await aLocation(a), await aLocation(a)];
      const alice = await aResident(a);
      const listener = await b.socket(alice.token);
      for (const id of [place.id, other.id]) expect(await listener.timeout(5000).emitWithAck('subscribe', { channel: 'location', id })).toMatchObject({ status: 200 });
      return {
        listener,
        event: 'location:updated',
        act: async () => {
          domainEvents.publish('channel.access_ended', { channel: 'location', id: place.id, userId: alice.id });
          expect(await eventually(async () => !(await hears(a, listener, channelRoom('location', place.id))))).toBe(true);
          expect(await listener.timeout(5000).emitWithAck('unsubscribe', { channel: 'location', id: place.id })).toMatchObject({ status: 404 });
          return announce(a, other.id); // the other subscription still hears
        },
        check: (payload, location) => expect(payload).toEqual(location),
      };
    },
  },
  {
    name: 'logout through A ends that session’s sockets on B, not the user’s other session',
    async arrange({ a, b }) {
      const alice = await aResident(a);
      const other = await a.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } });
      const listener = await b.socket(alice.token);
      const otherDevice = await b.socket(other.body.access_token);
      return {
        listener,
        event: 'auth:expired',
        quiet: [otherDevice],
        act: () => a.rest('POST', '/api/auth/logout/', { token: alice.token, body: { refresh: alice.refresh } }),
        check: async () => {
          await endedBy(listener);
          expect(otherDevice.connected).toBe(true);
          expect(await otherDevice.timeout(5000).emitWithAck('users.profile', {})).toMatchObject({ status: 200 });
        },
      };
    },
  },
  {
    name: 'a refresh token reused through A revokes its family: that session’s sockets on B end',
    async arrange({ a, b }) {
      const alice = await aResident(a);
      const listener = await b.socket(alice.token);
      return {
        listener,
        event: 'auth:expired',
        act: async () => {
          expect((await a.rest('POST', '/api/auth/refresh/', { body: { refresh: alice.refresh } })).status).toBe(200);
          expect((await a.rest('POST', '/api/auth/refresh/', { body: { refresh: alice.refresh } })).status).toBe(401); // reuse
        },
        check: () => endedBy(listener),
      };
    },
  },
  {
    name: 'a password reset through A ends every session’s sockets on B',
    async arrange({ a, b }) {
      const alice = await aResident(a);
      const other = await a.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } });
      const listener = await b.socket(alice.token);
      const otherDevice = await b.socket(other.body.access_token);
      return {
        listener,
        event: 'auth:expired',
        act: async () => {
          expect((await a.rest('POST', '/api/auth/password-reset/request/', { body: { email: alice.email } })).status).toBe(200);
          const otp = await latestResetCode(a, alice.email);
          const confirmed = await a.rest('POST', '/api/auth/password-reset/confirm/', { body: { email: alice.email, otp, new_password: 'a-brand-new-password' } });
          expect(confirmed.status).toBe(200);
        },
        check: async () => {
          await endedBy(listener);
          await endedBy(otherDevice);
        },
      };
    },
  },
  {
    name: 'deactivation through A disconnects the user’s sockets on B, which hear nothing more',
    async arrange({ a, b, admin }) {
      const alice = await aResident(a);
      const listener = await b.socket(alice.token);
      return {
        listener,
        event: 'disconnect',
        act: () => a.rest('PATCH', `/api/admin/users/${alice.username}/`, { token: admin, body: { is_active: false } }),
        check: async (reason) => {
          expect(reason).toBe('io server disconnect');
          const pushed = noEvent(listener, 'notification:created', 500);
          await aNotification(a, alice.id);
          await pushed;
        },
      };
    },
  },
  {
    name: 'message:created reaches every participant, the sender’s other devices included, not an outsider',
    async arrange({ a, b }) {
      const [alice, bob, eve] = [await aResident(a), await aResident(a), await aResident(a)];
      const { id } = await aConversation(a, alice, bob);
      const listener = await b.socket(bob.token);
      const senderElsewhere = await b.socket(alice.token);
      const heardBySender = nextEvent(senderElsewhere, 'message:created');
      return {
        listener,
        event: 'message:created',
        quiet: [await b.socket(eve.token)],
        act: () => aMessage(a, alice, id, 'from node A'),
        check: async (payload, sent) => {
          expect(payload).toEqual(sent);
          expect(await heardBySender).toEqual(sent);
        },
      };
    },
  },
  {
    name: 'conversation:read reaches the other participants, not the reader nor an outsider',
    async arrange({ a, b }) {
      const [alice, bob, eve] = [await aResident(a), await aResident(a), await aResident(a)];
      const { id } = await aConversation(a, alice, bob);
      await aMessage(a, alice, id);
      return {
        listener: await b.socket(alice.token),
        event: 'conversation:read',
        quiet: [await b.socket(bob.token), await b.socket(eve.token)],
        act: async () => (await a.rest('POST', `/api/messages/conversations/${id}/read/`, { token: bob.token, body: {} })).body,
        check: (payload, read) => expect(payload).toEqual({ ...read, user_id: bob.id }),
      };
    },
  },
  {
    name: 'typing sent on A reaches the other participants on B, not the typist’s own devices nor an outsider',
    async arrange({ a, b }) {
      const [alice, bob, eve] = [await aResident(a), await aResident(a), await aResident(a)];
      const { id } = await aConversation(a, alice, bob);
      const typist = await a.socket(alice.token);
      return {
        listener: await b.socket(bob.token),
        event: 'typing',
        quiet: [await b.socket(alice.token), await b.socket(eve.token)],
        act: async () => {
          expect(await typist.timeout(5000).emitWithAck('typing', { conversation_id: id })).toMatchObject({ status: 200 });
          return { conversation_id: id, user_id: alice.id };
        },
        check: (payload, expected) => expect(payload).toEqual(expected),
      };
    },
  },
  {
    name: 'order:created reaches the seller, not the buyer nor a stranger',
    async arrange({ a, b }) {
      const { seller, product } = await aShopWithProduct(a);
      const [buyer, stranger] = [await aResident(a), await aResident(a)];
      return {
        listener: await b.socket(seller.token),
        event: 'order:created',
        quiet: [await b.socket(buyer.token), await b.socket(stranger.token)],
        act: () => anOrder(a, buyer, product.id),
        check: (payload, order) => expect(payload).toEqual(order),
      };
    },
  },
  {
    name: 'order:updated reaches the buyer, not the seller nor a stranger',
    async arrange({ a, b }) {
      const { seller, product } = await aShopWithProduct(a);
      const [buyer, stranger] = [await aResident(a), await aResident(a)];
      const order = await anOrder(a, buyer, product.id);
      return {
        listener: await b.socket(buyer.token),
        event: 'order:updated',
        quiet: [await b.socket(seller.token), await b.socket(stranger.token)],
        act: async () => (await a.rest('PATCH', `/api/stores/orders/${order.id}/`, { token: seller.token, body: { status: 'shipped' } })).body,
        check: (payload, updated) => expect(payload).toEqual({ ...updated, status: 'shipped' }),
      };
    },
  },
  {
    name: 'order:updated of a buyer’s cancellation reaches the seller, not the buyer nor a stranger',
    async arrange({ a, b }) {
      const { seller, product } = await aShopWithProduct(a);
      const [buyer, stranger] = [await aResident(a), await aResident(a)];
      const order = await anOrder(a, buyer, product.id);
      return {
        listener: await b.socket(seller.token),
        event: 'order:updated',
        quiet: [await b.socket(buyer.token), await b.socket(stranger.token)],
        act: async () => (await a.rest('PATCH', `/api/stores/orders/${order.id}/`, { token: buyer.token, body: { status: 'cancelled' } })).body,
        check: (payload, cancelled) => expect(payload).toEqual({ ...cancelled, status: 'cancelled' }),
      };
    },
  },
  {
    name: 'post:created reaches a location’s subscribers on B, not another location’s',
    async arrange({ a, b }) {
      const [place, other] = [await aNeighbourhood(a), await aNeighbourhood(a)];
      const [display, elsewhere] = [await b.socket(), await b.socket()];
      expect(await subscribeTo(display, 'location', place.locationId)).toMatchObject({ status: 200 });
      expect(await subscribeTo(elsewhere, 'location', other.locationId)).toMatchObject({ status: 200 });
      return { listener: display, event: 'post:created', quiet: [elsewhere], act: () => aPost(a, place.founder), check: (payload, post) => expect(payload).toEqual(post) };
    },
  },
  {
    name: 'post:created in a community reaches the community’s room on B, not the author’s location',
    async arrange({ a, b }) {
      const place = await aNeighbourhood(a);
      const club = await aCommunity(a, place.founder);
      const member = await aResident(a);
      await joinCommunity(a, member, club.id);
      const [listener, display] = [await b.socket(member.token), await b.socket()];
      expect(await subscribeTo(listener, 'community', club.id)).toMatchObject({ status: 200 });
      expect(await subscribeTo(display, 'location', place.locationId)).toMatchObject({ status: 200 });
      return { listener, event: 'post:created', quiet: [display], act: () => aPost(a, place.founder, { community_id: club.id }), check: (payload, post) => expect(payload).toEqual(post) };
    },
  },
  {
    name: 'post:deleted reaches the post’s room on B',
    async arrange({ a, b }) {
      const place = await aNeighbourhood(a);
      const post = await aPost(a, place.founder);
      const listener = await b.socket();
      expect(await subscribeTo(listener, 'post', post.id)).toMatchObject({ status: 200 });
      return {
        listener,
        event: 'post:deleted',
        act: async () => expect((await a.rest('DELETE', `/api/feed/posts/${post.id}/`, { token: place.founder.token })).status).toBe(204),
        check: (payload) => expect(payload).toEqual({ id: post.id }),
      };
    },
  },
  {
    name: 'community:deleted through A reaches the community’s room on B after its posts’ post:deleted, and the socket on B leaves the room',
    async arrange({ a, b }) {
      const [owner, follower] = [await aResident(a), await aResident(a)];
      const club = await aCommunity(a, owner);
      const post = await aPost(a, owner, { community_id: club.id });
      const listener = await b.socket(follower.token);
      expect(await subscribeTo(listener, 'community', club.id)).toMatchObject({ status: 200 });
      const postDeleted = nextEvent(listener, 'post:deleted');
      return {
        listener,
        event: 'community:deleted',
        act: async () => expect((await a.rest('DELETE', `/api/communities/communities/${club.id}/`, { token: owner.token })).status).toBe(204),
        check: async (payload) => {
          expect(payload).toEqual({ id: club.id });
          expect(await postDeleted).toEqual({ id: post.id });
          // Asked of every node after B has applied the leave (the adapter carries both in order).
          expect(await a.server.io.in(channelRoom('community', club.id)).fetchSockets()).toEqual([]);
        },
      };
    },
  },
  {
    name: 'post:stats reaches the post’s room on B after a like through A',
    async arrange({ a, b }) {
      const place = await aNeighbourhood(a);
      const post = await aPost(a, place.founder);
      const fan = await aResident(a);
      const listener = await b.socket();
      expect(await subscribeTo(listener, 'post', post.id)).toMatchObject({ status: 200 });
      return {
        listener,
        event: 'post:stats',
        act: async () => expect((await a.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: fan.token, body: {} })).status).toBe(200),
        check: (payload) => expect(payload).toMatchObject({ post_id: post.id, likes_count: 1 }),
      };
    },
  },
  {
    name: 'comment:created reaches the post’s room on B',
    async arrange({ a, b }) {
      const place = await aNeighbourhood(a);
      const post = await aPost(a, place.founder);
      const listener = await b.socket();
      expect(await subscribeTo(listener, 'post', post.id)).toMatchObject({ status: 200 });
      return { listener, event: 'comment:created', act: () => aComment(a, place.founder, post.id), check: (payload, comment) => expect(payload).toEqual(comment) };
    },
  },
  {
    name: 'poll:updated reaches the poll’s room on B after a vote through A',
    async arrange({ a, b }) {
      const place = await aNeighbourhood(a);
      const poll = await aPoll(a, place.founder);
      const voter = await aResident(a);
      const listener = await b.socket();
      expect(await subscribeTo(listener, 'post', poll.id)).toMatchObject({ status: 200 });
      return {
        listener,
        event: 'poll:updated',
        act: async () => (await a.rest('POST', `/api/feed/posts/${poll.id}/vote_poll/`, { token: voter.token, body: { option_id: poll.poll_data.options[0].id } })).body,
        // Pushed as an anonymous viewer sees it: the counts of the voter's answer, user_voted false.
        check: (payload, voted) =>
          expect(payload).toEqual({
            post_id: poll.id,
            poll_data: { ...voted.poll_data, user_voted: false, options: voted.poll_data.options.map((o: Record<string, unknown>) => ({ ...o, user_voted: false })) },
          }),
      };
    },
  },
  {
    name: 'poll:expired reaches the poll’s room on B when the expiry job runs on A',
    async arrange({ a, b }) {
      const place = await aNeighbourhood(a);
      const poll = await aPoll(a, place.founder);
      const listener = await b.socket();
      expect(await subscribeTo(listener, 'post', poll.id)).toMatchObject({ status: 200 });
      return {
        listener,
        event: 'poll:expired',
        // The job runs in this process, which is node A; other files' expired polls may be announced too.
        act: async () => {
          await sql(`UPDATE polls SET expires_at = now() - interval '1 second' WHERE post_id = $1`, [poll.id]);
          expect(await announceExpiredPolls()).toBeGreaterThanOrEqual(1);
          return poll;
        },
        check: (payload, expired) => expect(payload).toMatchObject({ post_id: expired.id, poll_data: { id: expired.poll_data.id, is_expired: true } }),
      };
    },
  },
];

for (const adapter of ['classic', 'sharded'] as const) {
  describeWithRedis(`cross-node delivery with REDIS_ADAPTER=${adapter}`, () => {
    let cluster: TestCluster & { admin: string };
    beforeAll(async () => {
      const admin = adminEnv();
      const started = await startCluster({ REDIS_ADAPTER: adapter, REFRESH_REUSE_GRACE_SECONDS: '0' }, admin);
      cluster = { ...started, admin: await loginAdmin(started.a, admin) };
    }, CLUSTER_START_TIMEOUT_MS);
    afterAll(async () => {
      await cluster?.stop();
    });

    test.each(CROSS_NODE_EVENTS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
      const { listener, event, act, check = () => undefined, quiet = [] } = await row.arrange(cluster);
      // Every `event` the listener hears; the act may cause others of the same name first (a move's own update).
      const heard: unknown[] = [];
      listener.on(event, (payload: unknown) => heard.push(payload));
      const silences = quiet.map((s) => noEvent(s, event, 800));
      const acted = await act();
      await expectSomeHeard(heard, event, (payload) => check(payload, acted));
      await Promise.all(silences);
    });
  });
}

/** Wait until one of the heard payloads passes `check`; fail with the last check's error (or none heard). */
async function expectSomeHeard(heard: unknown[], event: string, check: (payload: unknown) => void | Promise<void>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  let lastError: unknown = new Error(`no ${event} within ${ms} ms`);
  let tried = 0;
  while (Date.now() < until) {
    for (; tried < heard.length; tried++) {
      try {
        await check(heard[tried]);
        return;
      } catch (err) {
        lastError = err;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw lastError;
}
