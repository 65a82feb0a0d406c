import type { Socket } from 'socket.io-client';
import { nextEvent, noEvent, startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';
import type { TestUser } from '../builders/users.js';
import { aCity, aFeedPage, aResidentAt } from '../builders/feeds.js';
import { aComment, aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { aProduct, aStore } from '../builders/stores.js';
import { aCommunity, joinCommunity } from '../builders/communities.js';
import { aBlock, aReport } from '../builders/safety.js';

/**
 * Issue 31, "Blocks still leak": DESIGN.md section 9, "Every path". After alice blocks bob, the block holds in
 * "people near you" and every other list of people, between each one and the other's shop (no order, no review:
 * 403), in typing and read receipts; and replies and mentions under content hidden by moderation reach nobody but
 * their author and staff. Each case over both transports where both apply.
 */
const ADMIN = { email: `${unique('mod')}@example.test`, password: 'moderator-password-' + unique() };
let app: TestApp;
let staff: { token: string };
beforeAll(async () => {
  app = await startTestApp({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, RATE_LIMITS: 'off' });
  const login = await app.rest('POST', '/api/auth/login/', { body: { username: ADMIN.email, password: ADMIN.password } });
  if (login.status !== 200) throw new Error(`admin login answered ${login.status}`);
  staff = { token: login.body.access_token };
});
afterAll(async () => {
  await app.stop();
});

const FORBIDDEN = { status: 403, body: { detail: 'You do not have permission to perform this action.' } };
const usernames = (block: { items: Array<{ username: string }> }) => block.items.map((u) => u.username);

/** The same read over REST and the socket: the two answers must agree; the REST body is answered. */
async function readBoth(op: string, path: string, user: TestUser, query: Record<string, unknown> = {}): Promise<any> {
  const rest = await app.rest('GET', path, { token: user.token, query });
  expect(rest.status).toBe(200);
  expect(await app.emit(op, query, { token: user.token })).toEqual({ status: 200, body: rest.body });
  return rest.body;
}

/** Three neighbours of one city (alice and bob 1.4 km apart, carol beside alice); alice blocks bob. */
async function aBlockedPairOfNeighbours() {
  const city = aCity();
  const alice = await aResidentAt(app, city);
  const bob = await aResidentAt(app, city, 1400, 0);
  const carol = await aResidentAt(app, city, 0, 300);
  await aBlock(app, alice, bob);
  return { city, alice, bob, carol };
}

describe('"people near you" and the other lists of people', () => {
  test('when alice blocked bob, then neither is offered to the other as a person near them (REST and socket); carol is offered both', async () => {
    const { alice, bob, carol } = await aBlockedPairOfNeighbours();
    const USERS = '/api/feed/enhancements/users/';
    expect(usernames(await readBoth('feeds.enhancements.users', USERS, alice))).not.toContain(bob.username);
    expect(usernames(await readBoth('feeds.enhancements.users', USERS, bob))).not.toContain(alice.username);
    // Naming the other's place changes nothing.
    expect(usernames(await readBoth('feeds.enhancements.users', USERS, alice, { location_id: bob.locationId }))).not.toContain(bob.username);
    const forCarol = usernames(await readBoth('feeds.enhancements.users', USERS, carol));
    expect(forCarol).toEqual(expect.arrayContaining([alice.username, bob.username]));
  }, 60_000);

  test('when a caller names a place far from home, then it is offered nobody there (people only near home); its own neighbourhood still answers', async () => {
    const city = aCity();
    const alice = await aResidentAt(app, city);
    const neighbour = await aResidentAt(app, city, 0, 400);
    const far = await aResidentAt(app, aCity());
    const USERS = '/api/feed/enhancements/users/';
    const there = await readBoth('feeds.enhancements.users', USERS, alice, { location_id: far.locationId });
    expect(there).toEqual({ type: 'users', items: [], inject_at_positions: [], title: expect.any(String) });
    expect(usernames(await readBoth('feeds.enhancements.users', USERS, alice, { location_id: neighbour.locationId }))).toContain(neighbour.username);
    // The stores and communities of a far place are public listings, still answered there.
    const farStore = await aStore(app, far);
    expect((await aFeedPage(app, alice, '/api/feed/enhancements/stores/', { location_id: far.locationId })).items.map((s: any) => s.id)).toContain(farStore.id);
  }, 60_000);

  test('when alice blocked bob, then his shop is not offered to her as a store near her, nor hers to him', async () => {
    const { alice, bob, carol } = await aBlockedPairOfNeighbours();
    const bobStore = await aStore(app, bob);
    const aliceStore = await aStore(app, alice);
    const STORES = '/api/feed/enhancements/stores/';
    const ids = (block: { items: Array<{ id: string }> }) => block.items.map((s) => s.id);
    expect(ids(await readBoth('feeds.enhancements.stores', STORES, alice))).not.toContain(bobStore.id);
    expect(ids(await readBoth('feeds.enhancements.stores', STORES, bob))).not.toContain(aliceStore.id);
    expect(ids(await readBoth('feeds.enhancements.stores', STORES, carol))).toEqual(expect.arrayContaining([bobStore.id, aliceStore.id]));
  }, 60_000);

  test("when alice blocked bob, then neither is listed among a community's members for the other (count included); carol sees both", async () => {
    const { alice, bob, carol } = await aBlockedPairOfNeighbours();
    const club = await aCommunity(app, carol);
    await joinCommunity(app, alice, club.id);
    await joinCommunity(app, bob, club.id);
    const path = `/api/communities/communities/${club.id}/members/`;
    const members = (body: any) => body.results.map((m: any) => m.user.username).sort();
    const forAlice = await readBoth('communities.members', path, alice, { community_id: club.id });
    expect({ names: members(forAlice), count: forAlice.count }).toEqual({ names: [alice.username, carol.username].sort(), count: 2 });
    expect(members(await readBoth('communities.members', path, bob, { community_id: club.id }))).toEqual([bob.username, carol.username].sort());
    expect(members(await readBoth('communities.members', path, carol, { community_id: club.id }))).toEqual([alice.username, bob.username, carol.username].sort());
  }, 60_000);
});

describe('the shop of someone in a block', () => {
  async function aBlockedShop() {
    const place = await aNeighbourhood(app);
    const alice = place.founder;
    const bob = await aResidentOf(app, place);
    const store = await aStore(app, alice);
    const product = await aProduct(app, alice, store.id, { stock: 5 });
    const bobStore = await aStore(app, bob);
    const bobProduct = await aProduct(app, bob, bobStore.id, { stock: 5 });
    return { alice, bob, product, bobProduct };
  }

  test('when alice blocked bob, then an order either way is 403 on REST and the socket: no order, no stock held, nothing pushed to the seller', async () => {
    const { alice, bob, product, bobProduct } = await aBlockedShop();
    const aliceSocket = await app.socket(alice.token);
    const quiet = noEvent(aliceSocket, 'order:created', 800);
    await aBlock(app, alice, bob);
    const order = { product: product.id, quantity: 2 };
    const rest = await app.rest('POST', '/api/stores/orders/', { token: bob.token, body: order });
    expect({ status: rest.status, body: rest.body }).toEqual(FORBIDDEN);
    expect(await app.emit('orders.create', order, { token: bob.token })).toEqual(FORBIDDEN);
    expect(await app.emit('orders.create', { product: bobProduct.id, quantity: 1 }, { token: alice.token })).toEqual(FORBIDDEN);
    const back = await app.rest('POST', '/api/stores/orders/', { token: alice.token, body: { product: bobProduct.id, quantity: 1 } });
    expect({ status: back.status, body: back.body }).toEqual(FORBIDDEN);
    await quiet;
    expect(await sql('SELECT id FROM orders WHERE product_id = ANY($1::uuid[])', [[product.id, bobProduct.id]])).toEqual([]);
    expect(await sql('SELECT stock FROM products WHERE id = ANY($1::uuid[])', [[product.id, bobProduct.id]])).toEqual([{ stock: 5 }, { stock: 5 }]);
  });

  test("when alice blocked bob, then a review either way is 403 on REST and the socket, changing an earlier one too, and his earlier review is not listed for her", async () => {
    const { alice, bob, product, bobProduct } = await aBlockedShop();
    const carol = await aResidentOf(app);
    const earlier = await app.rest('POST', '/api/stores/reviews/', { token: bob.token, body: { product: product.id, rating: 1, comment: 'Before the block' } });
    expect(earlier.status).toBe(201);
    await aBlock(app, alice, bob);

    const review = { product: product.id, rating: 1, comment: 'Awful' };
    const fresh = await app.rest('POST', '/api/stores/reviews/', { token: carol.token, body: review });
    expect(fresh.status).toBe(201);
    expect(await app.emit('reviews.create', { product: bobProduct.id, rating: 1 }, { token: alice.token })).toEqual(FORBIDDEN);
    const back = await app.rest('POST', '/api/stores/reviews/', { token: alice.token, body: { product: bobProduct.id, rating: 1 } });
    expect({ status: back.status, body: back.body }).toEqual(FORBIDDEN);
    const change = await app.rest('PATCH', `/api/stores/reviews/${earlier.body.id}/`, { token: bob.token, body: { rating: 1, comment: 'Still here' } });
    expect({ status: change.status, body: change.body }).toEqual(FORBIDDEN);
    expect(await app.emit('reviews.update', { review_id: earlier.body.id, rating: 2 }, { token: bob.token })).toEqual(FORBIDDEN);

    const listed = async (user: TestUser) => (await readBoth('reviews.list', '/api/stores/reviews/', user, { product: product.id })).results.map((r: any) => r.id).sort();
    expect(await listed(alice)).toEqual([fresh.body.id]);
    expect(await listed(carol)).toEqual([earlier.body.id, fresh.body.id].sort());
    // Taking one's own review down stays possible across the block.
    expect((await app.rest('DELETE', `/api/stores/reviews/${earlier.body.id}/`, { token: bob.token })).status).toBe(204);
  });
});

describe('typing and read receipts in a conversation from before the block', () => {
  /** alice, bob and carol share a group, and alice and bob a 1:1, both opened before alice blocks bob. */
  async function oldConversations() {
    const [alice, bob, carol] = [await aResidentOf(app), await aResidentOf(app), await aResidentOf(app)];
    const direct = await aConversation(app, alice, bob);
    const group = await aConversation(app, alice, bob, carol);
    await aMessage(app, alice, direct.id);
    await aMessage(app, carol, group.id);
    await aBlock(app, alice, bob);
    const [aliceSocket, bobSocket, carolSocket] = await Promise.all([alice, bob, carol].map((u) => app.socket(u.token)));
    return { alice, bob, carol, direct, group, aliceSocket, bobSocket, carolSocket };
  }
  const typing = (s: Socket, conversationId: string) => s.timeout(5000).emitWithAck('typing', { conversation_id: conversationId });

  test("when bob types in their old 1:1 or in a group with alice, then alice's sockets hear nothing; carol hears him in the group; alice's typing does not reach him", async () => {
    const { alice, bob, direct, group, aliceSocket, bobSocket, carolSocket } = await oldConversations();
    const aliceQuiet = noEvent(aliceSocket, 'typing', 800);
    const carolHears = nextEvent(carolSocket, 'typing');
    expect((await typing(bobSocket, direct.id)).status).toBe(200);
    expect((await typing(bobSocket, group.id)).status).toBe(200);
    expect(await carolHears).toEqual({ conversation_id: group.id, user_id: bob.id });
    await aliceQuiet;

    const bobQuiet = noEvent(bobSocket, 'typing', 800);
    const carolHearsAlice = nextEvent(carolSocket, 'typing');
    expect((await typing(aliceSocket, direct.id)).status).toBe(200);
    expect((await typing(aliceSocket, group.id)).status).toBe(200);
    expect(await carolHearsAlice).toEqual({ conversation_id: group.id, user_id: alice.id });
    await bobQuiet;
  });

  test('when bob reads their old 1:1 (REST) or the group (socket), then alice hears no conversation:read; carol hears the group\'s', async () => {
    const { bob, direct, group, aliceSocket, carolSocket } = await oldConversations();
    const aliceQuiet = noEvent(aliceSocket, 'conversation:read', 1000);
    const carolHears = nextEvent(carolSocket, 'conversation:read');
    const rest = await app.rest('POST', `/api/messages/conversations/${direct.id}/read/`, { token: bob.token, body: {} });
    expect(rest).toMatchObject({ status: 200, body: { conversation_id: direct.id, user_id: bob.id, last_read_message_id: expect.any(String) } });
    const socket = await app.emit('messages.read', { conversation_id: group.id }, { token: bob.token });
    expect(socket).toMatchObject({ status: 200, body: { conversation_id: group.id, user_id: bob.id } });
    expect(await carolHears).toEqual(socket.body);
    await aliceQuiet;
  });
});

describe('replies and mentions under content hidden by moderation', () => {
  /** Staff hide a thing after a report, through the real moderation path. */
  async function hiddenByStaff(reporter: TestUser, targetType: 'post' | 'comment', targetId: string): Promise<void> {
    await aReport(app, reporter, targetType, targetId);
    const [open] = await sql<{ id: string }>(`SELECT id FROM moderation_cases WHERE target_id = $1 AND status = 'open'`, [targetId]);
    const res = await app.rest('POST', `/api/admin/reports/${open.id}/resolve/`, { token: staff.token, body: { action: 'hide' } });
    if (res.status !== 200) throw new Error(`resolve answered ${res.status} ${JSON.stringify(res.body)}`);
  }

  /** The notification types `user` got about `targetId`. */
  async function notificationsOf(user: TestUser): Promise<Array<{ type: string; actor: string | null }>> {
    const res = await app.rest('GET', '/api/notifications/', { token: user.token, query: { page_size: 100 } });
    return res.body.results.map((n: any) => ({ type: n.notification_type, actor: n.actor?.id ?? null }));
  }

  test("when bob replies under his comment that staff hid (REST and socket), mentioning dave, then the post's watchers hear nothing and nobody is notified; the same reply under a visible comment is heard", async () => {
    const place = await aNeighbourhood(app);
    const carol = place.founder;
    const [bob, dave] = [await aResidentOf(app, place), await aResidentOf(app, place)];
    const post = await aPost(app, carol);
    const visible = await aComment(app, bob, post.id);
    const hidden = await aComment(app, bob, post.id);
    await hiddenByStaff(dave, 'comment', hidden.id);
    const watcher = await app.socket(dave.token);
    expect(await watcher.timeout(5000).emitWithAck('subscribe', { channel: 'post', id: post.id })).toMatchObject({ status: 200 });

    const quiet = noEvent(watcher, 'comment:created', 1000);
    const reply = { post: post.id, parent: hidden.id, content: `Still here, @${dave.username}` };
    const rest = await app.rest('POST', '/api/posts/comments/', { token: bob.token, body: reply });
    expect(rest.status).toBe(201);
    const socket = await app.emit('comments.create', { ...reply, content: `Again, @${dave.username}` }, { token: bob.token });
    expect(socket.status).toBe(201);
    await quiet;
    // Kept for its author, read by id of the hidden thread.
    expect((await app.rest('GET', '/api/posts/comments/replies/', { token: bob.token, query: { parent_id: hidden.id } })).body.count).toBe(2);
    expect((await notificationsOf(dave)).filter((n) => n.actor === bob.id)).toEqual([]);
    // Carol, the post's author, was told of bob's two comments before the hiding, and of nothing since.
    expect((await notificationsOf(carol)).filter((n) => n.actor === bob.id && n.type === 'post_reply')).toHaveLength(2);

    // The control: the same reply under a visible comment reaches the watcher and notifies.
    const heard = nextEvent(watcher, 'comment:created');
    const shown = await app.rest('POST', '/api/posts/comments/', { token: bob.token, body: { ...reply, parent: visible.id } });
    expect((await heard).id).toBe(shown.body.id);
    expect((await notificationsOf(dave)).filter((n) => n.actor === bob.id).map((n) => n.type)).toEqual(['mention']);
  });

  test('when bob comments on his own post that staff hid, mentioning dave, then dave is not notified (REST and socket)', async () => {
    const place = await aNeighbourhood(app);
    const [bob, dave] = [place.founder, await aResidentOf(app, place)];
    const post = await aPost(app, bob);
    await hiddenByStaff(dave, 'post', post.id);
    const body = { post: post.id, content: `Look @${dave.username}` };
    expect((await app.rest('POST', '/api/posts/comments/', { token: bob.token, body })).status).toBe(201);
    expect((await app.emit('comments.create', body, { token: bob.token })).status).toBe(201);
    expect((await notificationsOf(dave)).filter((n) => n.actor === bob.id)).toEqual([]);
  });

  test("when carol mentions alice in a comment on bob's post and alice blocked bob, then alice is not told of a comment she cannot read", async () => {
    const place = await aNeighbourhood(app);
    const [alice, bob, carol] = [place.founder, await aResidentOf(app, place), await aResidentOf(app, place)];
    await aBlock(app, alice, bob);
    const post = await aPost(app, bob);
    await aComment(app, carol, post.id, { content: `@${alice.username} have a look` });
    expect(await app.emit('comments.create', { post: post.id, content: `@${alice.username} again` }, { token: carol.token })).toMatchObject({ status: 201 });
    expect((await notificationsOf(alice)).filter((n) => n.actor === carol.id)).toEqual([]);
  });
});
