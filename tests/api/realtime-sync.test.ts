import crypto from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { nextEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';
import { aResident } from '../builders/locations.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { aNotification } from '../builders/notifications.js';
import { aShopWithProduct, anOrder } from '../builders/stores.js';
import type { TestUser } from '../builders/users.js';
import { aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { aCommunity, joinCommunity } from '../builders/communities.js';
import { useLateCommitMargin } from '../../src/modules/sync/sync.service.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  useLateCommitMargin();
  await app.stop();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const syncOver = (socket: Socket, input: Record<string, unknown>) => socket.timeout(10000).emitWithAck('realtime.sync', input);
const syncRest = (user: TestUser, query: Record<string, unknown>) => app.rest('GET', '/api/realtime/sync/', { token: user.token, query });
const ids = (items: Array<{ id: string }>) => items.map((i) => i.id);

/** A moment strictly between what happened before and what happens after (timestamps are compared strictly). */
async function aMomentNow(): Promise<string> {
  await pause(5);
  const at = new Date().toISOString();
  await pause(5);
  return at;
}

describe('catching up after a gap', () => {
  beforeEach(() => useLateCommitMargin(0));
  afterEach(() => useLateCommitMargin());

  test('when a client misses a notification, a message and an order update while away, then realtime.sync gives exactly those, the same over both transports, and nothing of anyone else', async () => {
    const alice = await aResident(app);
    const carol = await aResident(app);
    const eve = await aResident(app);
    const { seller: bob, product } = await aShopWithProduct(app);
    const order = await anOrder(app, alice, product.id);
    const { id: conversationId } = await aConversation(app, alice, carol);
    const { id: eveConversationId } = await aConversation(app, eve, carol);

    // Alice is online and hears Carol's message; then her phone goes away.
    const phone = await app.socket(alice.token);
    const heard = nextEvent(phone, 'message:created');
    await aMessage(app, carol, conversationId, 'before the gap');
    await heard;
    phone.close();
    const since = await aMomentNow();

    // While she is away: for her, and for others.
    const missedNotification = await aNotification(app, alice.id, { message: 'While you were away' });
    const missedMessage = await aMessage(app, carol, conversationId, 'while you were away');
    const shipped = await app.rest('PATCH', `/api/stores/orders/${order.id}/`, { token: bob.token, body: { status: 'processing' } });
    expect(shipped.status).toBe(200);
    const eveNotification = await aNotification(app, eve.id, { message: 'Not for Alice' });
    const eveMessage = await aMessage(app, carol, eveConversationId, 'not for alice');
    const eveOrder = await anOrder(app, eve, product.id);
    // The status change notified Alice (a `general` notification about the order).
    const [statusNotification] = await sql<{ id: string }>(`SELECT id FROM notifications WHERE user_id = $1 AND target_id = $2`, [alice.id, order.id]);

    const back = await app.socket(alice.token);
    const overSocket = await syncOver(back, { since });
    expect(overSocket.status).toBe(200);
    const body = overSocket.body;
    expect(ids(body.notifications)).toEqual([missedNotification.id, statusNotification.id]);
    expect(body.notifications[0]).toEqual(missedNotification);
    expect(body.messages).toEqual([missedMessage]);
    expect(body.orders).toEqual([shipped.body]);
    expect(body.has_more).toBe(false);
    expect(typeof body.cursor).toBe('string');
    const overRest = await syncRest(alice, { since });
    expect({ status: overRest.status, body: overRest.body }).toEqual(overSocket);

    // Nothing of anyone else reached Alice; Eve's sync has Eve's things and none of Alice's.
    const everything = JSON.stringify(body);
    for (const id of [eveNotification.id, eveMessage.id, eveOrder.id]) expect(everything).not.toContain(id);
    const eves = (await syncRest(eve, { since })).body;
    // Eve's own: the notification, and `new_message` for Carol's first message to her.
    expect(eves.notifications.map((n: { message: string }) => n.message)).toEqual(['Not for Alice', `You have a new message from ${carol.username}`]);
    expect(ids(eves.messages)).toEqual([eveMessage.id]);
    expect(ids(eves.orders)).toEqual([eveOrder.id]);
    for (const id of [missedNotification.id, statusNotification.id, missedMessage.id]) expect(JSON.stringify(eves)).not.toContain(id);
    expect(JSON.stringify(eves)).not.toContain(order.id);
    // The seller catches up on both orders it received: Alice's update and Eve's new order.
    const bobs = (await syncRest(bob, { since })).body;
    expect(ids(bobs.orders)).toEqual([order.id, eveOrder.id]);
    expect(bobs.orders[0]).toEqual(shipped.body);
    expect(bobs.messages).toEqual([]);

    // The answer's cursor resumes exactly where it ended: nothing again, then only what is new.
    expect((await syncOver(back, { cursor: body.cursor })).body).toMatchObject({ notifications: [], messages: [], orders: [], has_more: false });
    const later = await aMessage(app, alice, conversationId, 'back again');
    expect((await syncRest(alice, { cursor: body.cursor })).body.messages).toEqual([later]);
  });

  test('when a client was away for long and more than 100 items of each kind share one timestamp, then paging with the cursor gives every item once, oldest first', async () => {
    const pat = await aResidentOf(app);
    const other = await aResident(app);
    const { id: conversationId } = await aConversation(app, pat, other);
    const at = new Date(Date.now() - 2 * 86_400_000 + 60_000).toISOString(); // two days ago, all at one instant
    const since = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const notificationIds = (
      await sql<{ id: string }>(
        `INSERT INTO notifications (user_id, notification_type, message, created_at, updated_at)
         SELECT $1, 'general', 'n' || g, $2, $2 FROM generate_series(1, 250) g RETURNING id`,
        [pat.id, at],
      )
    ).map((r) => r.id);
    const messageIds = (
      await sql<{ id: string }>(
        `INSERT INTO messages (conversation_id, sender_id, text, created_at) SELECT $1, $2, 'm' || g, $3 FROM generate_series(1, 130) g RETURNING id`,
        [conversationId, other.id, at],
      )
    ).map((r) => r.id);
    // 110 bought by Pat, 5 sold by Pat.
    const orderIds = (
      await sql<{ id: string }>(
        `INSERT INTO orders (user_id, seller_id, quantity, unit_price, total_price, created_at, updated_at)
         SELECT CASE WHEN g <= 110 THEN $1::uuid ELSE $2::uuid END, CASE WHEN g <= 110 THEN $2::uuid ELSE $1::uuid END, 1, 3.50, 3.50, $3, $3
         FROM generate_series(1, 115) g RETURNING id`,
        [pat.id, other.id, at],
      )
    ).map((r) => r.id);

    // 120 posts in Pat's own place.
    const postIds = (
      await sql<{ id: string }>(
        `INSERT INTO posts (user_id, post_type, content, location_id, created_at, updated_at) SELECT $1, 'text', 'p' || g, $2, $3, $3 FROM generate_series(1, 120) g RETURNING id`,
        [other.id, pat.locationId, at],
      )
    ).map((r) => r.id);

    const socket = await app.socket(pat.token);
    const seen = { notifications: [] as string[], messages: [] as string[], orders: [] as string[], posts: [] as string[] };
    const sizes: number[][] = [];
    let answer = await syncOver(socket, { since });
    for (;;) {
      expect(answer.status).toBe(200);
      sizes.push([answer.body.notifications.length, answer.body.messages.length, answer.body.orders.length, answer.body.posts.length]);
      for (const kind of ['notifications', 'messages', 'orders', 'posts'] as const) seen[kind].push(...ids(answer.body[kind]));
      if (!answer.body.has_more) break;
      answer = await syncOver(socket, { cursor: answer.body.cursor });
    }
    expect(sizes).toEqual([
      [100, 100, 100, 100],
      [100, 30, 15, 20],
      [50, 0, 0, 0],
    ]);
    // Ties on the timestamp are ordered by id: every item once, in that order.
    expect(seen.notifications).toEqual([...notificationIds].sort());
    expect(seen.messages).toEqual([...messageIds].sort());
    expect(seen.orders).toEqual([...orderIds].sort());
    expect(seen.posts).toEqual([...postIds].sort());
    // A page over REST is the same page.
    const first = await syncRest(pat, { since });
    expect(first.body).toEqual((await syncOver(socket, { since })).body);
    // The last page's cursor is exact too when its items are older than the late-commit margin.
    useLateCommitMargin();
    const again = await syncOver(socket, { cursor: answer.body.cursor });
    expect(again.body).toMatchObject({ notifications: [], messages: [], orders: [], posts: [], has_more: false });
  });
});

describe('the last page of a catch-up', () => {
  test('when the newest items are younger than the late-commit margin, then the last cursor stays behind them (they may come again, never are skipped), while paging cursors stay exact', async () => {
    useLateCommitMargin();
    const sam = await aResident(app);
    const since = await aMomentNow();
    const fresh = await aNotification(app, sam.id, { message: 'just now' });
    const first = (await syncRest(sam, { since })).body;
    expect(ids(first.notifications)).toEqual([fresh.id]);
    expect(first.has_more).toBe(false);
    // A transaction stamped before `fresh` could still commit: the cursor does not pass it yet.
    const again = (await syncRest(sam, { cursor: first.cursor })).body;
    expect(ids(again.notifications)).toEqual([fresh.id]);
  });

  test('when since is ahead of the server clock, then nothing comes, and the cursor does not point past what happens next', async () => {
    useLateCommitMargin();
    const kim = await aResident(app);
    const ahead = (await syncRest(kim, { since: new Date(Date.now() + 3_600_000).toISOString() })).body;
    expect(ahead).toMatchObject({ notifications: [], messages: [], orders: [], has_more: false });
    const next = await aNotification(app, kim.id, { message: 'after a skewed since' });
    expect(ids((await syncRest(kim, { cursor: ahead.cursor })).body.notifications)).toEqual([next.id]);
  });
});

describe('posts', () => {
  beforeEach(() => useLateCommitMargin(0));
  afterEach(() => useLateCommitMargin());

  test('when a client misses posts of its own place, its communities and the rooms its socket watches, then realtime.sync gives exactly those (as pushed), and REST names the watched rooms', async () => {
    const home = await aNeighbourhood(app);
    const alice = await aResidentOf(app, home);
    const neighbour = await aResidentOf(app, home);
    const watched = await aNeighbourhood(app);
    const elsewhere = await aNeighbourhood(app);
    const club = await aCommunity(app, neighbour);
    await joinCommunity(app, alice, club.id);
    const otherClub = await aCommunity(app, elsewhere.founder);
    const display = await app.socket();
    expect(await display.timeout(5000).emitWithAck('subscribe', { channel: 'location', id: watched.locationId })).toMatchObject({ status: 200 });
    const since = await aMomentNow();

    const atHome = await aPost(app, neighbour);
    const pushed = nextEvent(display, 'post:created');
    const inWatched = await aPost(app, watched.founder);
    const inClub = await aPost(app, neighbour, { community_id: club.id });
    const deleted = await aPost(app, neighbour);
    expect((await app.rest('DELETE', `/api/feed/posts/${deleted.id}/`, { token: neighbour.token })).status).toBe(204);
    const notMine = [await aPost(app, elsewhere.founder), await aPost(app, elsewhere.founder, { community_id: otherClub.id })];

    const back = await app.socket(alice.token);
    expect(await back.timeout(5000).emitWithAck('subscribe', { channel: 'location', id: watched.locationId })).toMatchObject({ status: 200 });
    const overSocket = await syncOver(back, { since });
    expect(overSocket.status).toBe(200);
    expect(ids(overSocket.body.posts)).toEqual([atHome.id, inWatched.id, inClub.id]);
    expect(overSocket.body.posts).toEqual([atHome, inWatched, inClub]);
    expect(overSocket.body.posts[1]).toEqual(await pushed);
    // REST has no subscriptions: the client names the rooms it watches.
    const overRest = await syncRest(alice, { since, locations: watched.locationId });
    expect({ status: overRest.status, body: overRest.body }).toEqual(overSocket);
    expect(ids((await syncRest(alice, { since })).body.posts)).toEqual([atHome.id, inClub.id]);
    for (const post of notMine) expect(JSON.stringify(overSocket.body)).not.toContain(post.id);
  });

  test('when REST names a room that does not exist or an id that is not one, then 404 or a field error, over both transports', async () => {
    const user = await aResident(app);
    const socket = await app.socket(user.token);
    const since = new Date().toISOString();
    const cases: Array<[Record<string, unknown>, number, unknown]> = [
      [{ since, locations: crypto.randomUUID() }, 404, { detail: 'Not found.' }],
      [{ since, communities: crypto.randomUUID() }, 404, { detail: 'Not found.' }],
      [{ since, locations: 'nope' }, 400, { locations: ['Invalid UUID format.'] }],
    ];
    for (const [input, status, body] of cases) {
      const rest = await syncRest(user, input);
      expect({ input, status: rest.status, body: rest.body }).toEqual({ input, status, body });
      expect(await syncOver(socket, input)).toEqual({ status, body });
    }
  });
});

describe('bad input', () => {
  test('when since is missing or not a timestamp, the cursor is not one of ours, or the caller is anonymous, then the same clear error over both transports', async () => {
    const user = await aResident(app);
    const socket = await app.socket(user.token);
    const anonymous = await app.socket();
    const cases: Array<[Record<string, unknown>, number, unknown]> = [
      [{}, 400, { since: ['This field is required.'] }],
      [{ since: '' }, 400, { since: ['This field is required.'] }],
      [{ since: 'yesterday' }, 400, { since: ['Enter a valid date/time.'] }],
      [{ since: '2026-13-45T99:00:00Z' }, 400, { since: ['Enter a valid date/time.'] }],
      [{ cursor: 'not-a-cursor' }, 400, { cursor: ['Invalid cursor.'] }],
      [{ cursor: Buffer.from(JSON.stringify({ v: 1, notifications: ['x', 'y'] })).toString('base64url') }, 400, { cursor: ['Invalid cursor.'] }],
    ];
    for (const [input, status, body] of cases) {
      const rest = await syncRest(user, input);
      expect({ input, status: rest.status, body: rest.body }).toEqual({ input, status, body });
      expect(await syncOver(socket, input)).toEqual({ status, body });
    }
    const since = new Date().toISOString();
    const restAnonymous = await app.rest('GET', '/api/realtime/sync/', { query: { since } });
    expect(restAnonymous.status).toBe(401);
    expect(await syncOver(anonymous, { since })).toEqual({ status: 401, body: restAnonymous.body });
  });
});
