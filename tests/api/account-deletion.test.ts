import fs from 'node:fs';
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { eventually, nextEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';
import { PNG_1X1 } from '../helpers/images.js';
import type { TestUser } from '../builders/users.js';
import { aResident } from '../builders/locations.js';
import { aComment, aNeighbourhood, aPoll, aPost, aResidentOf } from '../builders/posts.js';
import { aCommunity, joinCommunity } from '../builders/communities.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { aProduct, anOrder, aShopWithProduct, aStore } from '../builders/stores.js';
import { aBlock, aMute, aReport } from '../builders/safety.js';
import { ACCOUNT_PUSH_LIMIT } from '../../src/modules/posts/posts.leaving.js';

/**
 * `DELETE /api/users/profile/ {password}` (DESIGN.md section 9, Leaving; docs/modules/leaving.md): the account goes
 * at once, in one transaction, and everything that named it follows: sessions, content and its counters, live pushes
 * and realtime.sync's `deleted`, communities it owned, the conversations and orders of the people it dealt with.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const profilePath = '/api/users/profile/';
const deleteAccount = (user: TestUser, password = user.password) => app.rest('DELETE', profilePath, { token: user.token, body: { password } });
const mediaFile = (url: string) => path.join(app.dataDir, 'media', new URL(url).pathname.replace(/^\/media\//, ''));
const subscribe = (s: Socket, channel: string, id: string) => s.timeout(5000).emitWithAck('subscribe', { channel, id });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A moment strictly between what happened before and what happens after (sync compares timestamps strictly). */
async function aMomentNow(): Promise<string> {
  await pause(5);
  const at = new Date().toISOString();
  await pause(5);
  return at;
}

/** Every `event` payload a socket hears until `count` have come. */
function collect<T = any>(socket: Socket, event: string, count: number, ms = 5000): Promise<T[]> {
  const got: T[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${got.length} of ${count} ${event} within ${ms} ms`)), ms);
    const on = (payload: T) => {
      got.push(payload);
      if (got.length < count) return;
      clearTimeout(timer);
      socket.off(event, on);
      resolve(got);
    };
    socket.on(event, on);
  });
}

describe('the password', () => {
  test('when the password is wrong, then 400 {password: [...]} over both transports, and nothing is deleted', async () => {
    const leaver = await aResidentOf(app);
    const post = await aPost(app, leaver);

    const overRest = await deleteAccount(leaver, 'not-my-password');
    expect(overRest).toMatchObject({ status: 400, body: { password: ['Incorrect password.'] } });
    const overSocket = await app.emit('users.profile_delete', { password: 'not-my-password' }, { token: leaver.token });
    expect(overSocket).toEqual({ status: 400, body: overRest.body });
    expect(await app.emit('users.profile_delete', {}, { token: leaver.token })).toEqual({ status: 400, body: { password: ['This field is required.'] } });

    expect((await app.rest('GET', profilePath, { token: leaver.token })).status).toBe(200);
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/`, { token: leaver.token })).status).toBe(200);
    expect(await sql('SELECT count(*)::int AS n FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL', [leaver.id])).toEqual([{ n: 1 }]);
  });

  test('when an anonymous caller asks, then 401; password guesses are limited per account', async () => {
    expect((await app.rest('DELETE', profilePath, { body: { password: 'x' } })).status).toBe(401);
    const leaver = await aResident(app);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await deleteAccount(leaver, `guess-${i}`)).status);
    expect(answers).toEqual([400, 400, 400, 400, 400, 429]);
  });
});

describe('the account itself', () => {
  test('when the account is deleted, then 204, its tokens are refused, its live socket hears auth:expired and is closed, and its username and email can register again', async () => {
    const leaver = await aResident(app);
    const phone = await app.socket(leaver.token);
    const ended = nextEvent(phone, 'auth:expired');
    const closed = nextEvent(phone, 'disconnect');

    const res = await deleteAccount(leaver);
    expect(res.status).toBe(204);
    // The browser's refresh cookie is cleared as at logout.
    expect(String(res.headers['set-cookie'])).toMatch(/refresh_token=;/);

    expect(await ended).toEqual({});
    expect(await closed).toBe('io server disconnect');
    expect(await app.rest('GET', profilePath, { token: leaver.token })).toMatchObject({ status: 401, body: { detail: 'Given token not valid for any token type' } });
    expect((await app.rest('POST', '/api/auth/refresh/', { body: { refresh: leaver.refresh } })).status).toBe(401);
    await expect(app.socket(leaver.token)).rejects.toThrow('unauthorized');
    expect((await app.rest('GET', `/api/users/${leaver.username}`)).status).toBe(404);
    expect((await app.rest('POST', '/api/auth/login/', { body: { username: leaver.username, password: leaver.password } })).status).toBe(401);

    const again = await app.rest('POST', '/api/auth/register/', {
      body: { email: leaver.email.toUpperCase(), username: leaver.username, display_name: 'Someone new', password: 'another-password-1' },
    });
    expect(again.status).toBe(201);
    expect(again.body.user.id).not.toBe(leaver.id);
    expect(await sql('SELECT count(*)::int AS n FROM users WHERE id = $1', [leaver.id])).toEqual([{ n: 0 }]);
  });

  test('when the account deletes itself over the socket, then the ack is 204, that socket stays as an anonymous one, and its other socket ends', async () => {
    const leaver = await aResident(app);
    const caller = await app.socket(leaver.token);
    const other = await app.socket(leaver.token);
    const otherEnded = nextEvent(other, 'auth:expired');

    expect(await caller.timeout(10000).emitWithAck('users.profile_delete', { password: leaver.password })).toEqual({ status: 204, body: null });
    await otherEnded;
    expect(caller.connected).toBe(true);
    expect(await caller.timeout(5000).emitWithAck('users.profile', {})).toMatchObject({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
  });
});

describe('content and its counters', () => {
  test('when the account is deleted, then its posts, comments, likes, bookmarks and votes are gone and every counter of the posts and comments that stay is exact', async () => {
    const home = await aNeighbourhood(app);
    const leaver = await aResidentOf(app, home);
    const alice = await aResidentOf(app, home);
    const bob = await aResidentOf(app, home);

    const own = await aPost(app, leaver);
    await app.rest('POST', `/api/feed/posts/${own.id}/like/`, { token: alice.token });
    const hers = await aPost(app, alice);
    await app.rest('POST', `/api/feed/posts/${hers.id}/like/`, { token: leaver.token });
    await app.rest('POST', `/api/feed/posts/${hers.id}/like/`, { token: bob.token });
    await app.rest('POST', `/api/feed/posts/${hers.id}/bookmark/`, { token: leaver.token });
    const leaversComment = await aComment(app, leaver, hers.id);
    const replyToLeaver = await aComment(app, bob, hers.id, { parent: leaversComment.id });
    const alicesComment = await aComment(app, alice, hers.id);
    const leaversReply = await aComment(app, leaver, hers.id, { parent: alicesComment.id });
    await app.rest('POST', `/api/posts/comments/${alicesComment.id}/like/`, { token: leaver.token });
    await app.rest('POST', `/api/posts/comments/${alicesComment.id}/bookmark/`, { token: leaver.token });
    const poll = await aPoll(app, alice);
    const [first, second] = poll.poll_data.options;
    expect((await app.rest('POST', `/api/feed/posts/${poll.id}/vote_poll/`, { token: leaver.token, body: { option_id: first.id } })).status).toBe(200);
    expect((await app.rest('POST', `/api/feed/posts/${poll.id}/vote_poll/`, { token: bob.token, body: { option_id: second.id } })).status).toBe(200);
    await app.rest('POST', `/api/feed/posts/${hers.id}/track_view/`, { token: leaver.token });

    expect(await deleteAccount(leaver)).toMatchObject({ status: 204 });

    expect((await app.rest('GET', `/api/feed/posts/${own.id}/`, { token: alice.token })).status).toBe(404);
    const after = (await app.rest('GET', `/api/feed/posts/${hers.id}/`, { token: alice.token })).body;
    // bob's like stays; of the four comments only alice's is left (bob's reply went with the leaver's comment).
    expect(after).toMatchObject({ likes_count: 1, comments_count: 1, views_count: 1 });
    expect(await sql('SELECT bookmarks_count FROM posts WHERE id = $1', [hers.id])).toEqual([{ bookmarks_count: 0 }]);
    const comments = (await app.rest('GET', `/api/posts/posts/${hers.id}/comments/`, { token: alice.token })).body;
    expect(comments.results.map((c: { id: string }) => c.id)).toEqual([alicesComment.id]);
    expect(comments.results[0]).toMatchObject({ replies_count: 0, likes_count: 0, bookmarks_count: 0 });
    expect(await sql('SELECT count(*)::int AS n FROM comments WHERE id = ANY($1)', [[leaversComment.id, replyToLeaver.id, leaversReply.id]])).toEqual([{ n: 0 }]);
    const pollAfter = (await app.rest('GET', `/api/feed/posts/${poll.id}/`, { token: bob.token })).body.poll_data;
    expect(pollAfter.total_votes).toBe(1);
    expect(pollAfter.options.map((o: { votes_count: number }) => o.votes_count)).toEqual([0, 1, 0]);
    // The view still counts, by nobody in particular.
    expect(await sql('SELECT user_id FROM post_views WHERE post_id = $1', [hers.id])).toEqual([{ user_id: null }]);
  });

  test('when the account is deleted, then a display watching its place hears post:deleted for each of its posts, and a neighbour who was away finds them and its comments in realtime.sync deleted', async () => {
    const home = await aNeighbourhood(app);
    const leaver = await aResidentOf(app, home);
    const alice = await aResidentOf(app, home);
    const stranger = await aResidentOf(app);
    const posts = [await aPost(app, leaver), await aPost(app, leaver)];
    const hers = await aPost(app, alice);
    const comment = await aComment(app, leaver, hers.id);
    const kept = await aPost(app, alice);
    const since = await aMomentNow();

    const display = await app.socket();
    expect(await subscribe(display, 'location', home.locationId)).toMatchObject({ status: 200 });
    const heard = collect(display, 'post:deleted', 2);

    expect((await deleteAccount(leaver)).status).toBe(204);

    expect((await heard).map((p) => p.id).sort()).toEqual(posts.map((p) => p.id).sort());
    const overRest = await app.rest('GET', '/api/realtime/sync/', { token: alice.token, query: { since } });
    expect(overRest.status).toBe(200);
    const gone = overRest.body.deleted.map((d: { type: string; id: string }) => `${d.type}:${d.id}`).sort();
    expect(gone).toEqual([...posts.map((p) => `post:${p.id}`), `comment:${comment.id}`].sort());
    expect(JSON.stringify(overRest.body.deleted)).not.toContain(kept.id);
    const overSocket = await app.emit('realtime.sync', { since }, { token: alice.token });
    expect(overSocket).toMatchObject({ status: 200, body: { deleted: overRest.body.deleted } });
    expect((await app.rest('GET', '/api/realtime/sync/', { token: stranger.token, query: { since } })).body.deleted).toEqual([]);
  });

  test('when the account is deleted, then its place counts one resident fewer and its blocks and mutes, both ways, are gone', async () => {
    const home = await aNeighbourhood(app);
    const leaver = await aResidentOf(app, home);
    const alice = await aResidentOf(app, home);
    const before = (await app.rest('GET', `/api/locations/locations/${home.locationId}/`, { token: alice.token })).body.total_users;
    await aBlock(app, leaver, alice);
    await aMute(app, alice, leaver);

    expect((await deleteAccount(leaver)).status).toBe(204);

    expect((await app.rest('GET', `/api/locations/locations/${home.locationId}/`, { token: alice.token })).body.total_users).toBe(before - 1);
    expect((await app.rest('GET', '/api/safety/mutes/', { token: alice.token })).body.count).toBe(0);
    expect(await sql('SELECT count(*)::int AS n FROM user_blocks WHERE blocker_id = $1 OR blocked_id = $1', [leaver.id])).toEqual([{ n: 0 }]);
  });
});

describe('reports and moderation', () => {
  test('when a reporter deletes the account, then their reports go, and the case staff review stays with its snapshot and one reporter fewer', async () => {
    const home = await aNeighbourhood(app);
    const [leaver, alice, carol] = [await aResidentOf(app, home), await aResidentOf(app, home), await aResidentOf(app, home)];
    const post = await aPost(app, carol);
    await aReport(app, leaver, 'post', post.id, { details: 'my words' });
    await aReport(app, alice, 'post', post.id);

    expect((await deleteAccount(leaver)).status).toBe(204);

    expect(await sql('SELECT count(*)::int AS n FROM safety_reports WHERE reporter_id = $1', [leaver.id])).toEqual([{ n: 0 }]);
    expect(await sql(`SELECT count(*)::int AS n FROM safety_reports r JOIN moderation_cases mc ON mc.id = r.case_id WHERE mc.target_id = $1 AND mc.status = 'open'`, [post.id])).toEqual([{ n: 1 }]);
    expect((await app.rest('GET', '/api/safety/reports/', { token: alice.token })).body.count).toBe(1);
  });

  test('when the author of reported content deletes the account, then the case stays for staff with its snapshot, naming no account', async () => {
    const home = await aNeighbourhood(app);
    const [leaver, alice] = [await aResidentOf(app, home), await aResidentOf(app, home)];
    const post = await aPost(app, leaver, { content: 'reported words' });
    await aReport(app, alice, 'post', post.id);

    expect((await deleteAccount(leaver)).status).toBe(204);

    const [kept] = await sql<{ owner_id: string | null; snapshot: unknown }>('SELECT owner_id, snapshot FROM moderation_cases WHERE target_id = $1', [post.id]);
    expect(kept.owner_id).toBeNull();
    expect(JSON.stringify(kept.snapshot)).toContain('reported words');
  });
});

describe('a large account', () => {
  test("when an account with thousands of posts, comments on them and likes is deleted, then every post has its tombstone, the pushes stop at their bound and other people's counters are exact", async () => {
    const home = await aNeighbourhood(app);
    const leaver = await aResidentOf(app, home);
    const alice = await aResidentOf(app, home);
    const hers = await aPost(app, alice);
    const many = 2500;
    // Arranged in SQL: thousands of requests would test the machine, not the deletion.
    await sql(`INSERT INTO posts (user_id, post_type, content, location_id, created_at)
      SELECT $1, 'text', 'bulk ' || g, $2, now() - make_interval(secs => g) FROM generate_series(1, $3::int) g`, [leaver.id, home.locationId, many]);
    await sql(`INSERT INTO comments (post_id, user_id, content) SELECT id, $2, 'a neighbour speaks' FROM posts WHERE user_id = $1`, [leaver.id, alice.id]);
    await sql(`INSERT INTO post_likes (post_id, user_id) SELECT id, $2 FROM posts WHERE user_id = $1`, [leaver.id, alice.id]);
    await app.rest('POST', `/api/feed/posts/${hers.id}/like/`, { token: leaver.token });
    const display = await app.socket();
    expect(await subscribe(display, 'location', home.locationId)).toMatchObject({ status: 200 });
    const heard: string[] = [];
    display.on('post:deleted', (p: { id: string }) => heard.push(p.id));

    const started = Date.now();
    expect((await deleteAccount(leaver)).status).toBe(204);
    expect(Date.now() - started).toBeLessThan(20_000);

    expect(await sql(`SELECT count(*)::int AS n FROM deletions WHERE type = 'post' AND author_id = $1`, [leaver.id])).toEqual([{ n: many }]);
    expect(await sql('SELECT count(*)::int AS n FROM posts WHERE user_id = $1', [leaver.id])).toEqual([{ n: 0 }]);
    expect(await eventually(async () => heard.length === ACCOUNT_PUSH_LIMIT, 10_000)).toBe(true);
    await pause(300);
    expect(heard).toHaveLength(ACCOUNT_PUSH_LIMIT);
    expect((await app.rest('GET', `/api/feed/posts/${hers.id}/`, { token: alice.token })).body.likes_count).toBe(0);
  });
});

describe('communities', () => {
  test('when an owner with members is deleted, then the longest-standing member owns the community, is told so, and the counts follow', async () => {
    const owner = await aResident(app);
    const elder = await aResident(app);
    const younger = await aResident(app);
    const club = await aCommunity(app, owner);
    await joinCommunity(app, elder, club.id);
    await joinCommunity(app, younger, club.id);
    await aPost(app, owner, { community_id: club.id });
    const elders = await aPost(app, elder, { community_id: club.id });

    expect((await deleteAccount(owner)).status).toBe(204);

    const after = (await app.rest('GET', `/api/communities/communities/${club.id}/`, { token: younger.token })).body;
    expect(after).toMatchObject({ owner: { id: elder.id }, members_count: 2, posts_count: 1 });
    const members = (await app.rest('GET', `/api/communities/communities/${club.id}/members/`, { token: younger.token })).body.results;
    expect(members.map((m: { user: { id: string }; role: string }) => [m.user.id, m.role])).toEqual([[elder.id, 'owner'], [younger.id, 'member']]);
    expect((await app.rest('GET', profilePath, { token: elder.token })).body.owned_communities.map((c: { id: string }) => c.id)).toEqual([club.id]);
    const told = (await app.rest('GET', '/api/notifications/', { token: elder.token })).body.results;
    expect(told).toContainEqual(expect.objectContaining({ notification_type: 'general', target_type: 'Community', target_id: club.id, actor: null }));
    expect((await app.rest('GET', `/api/feed/posts/${elders.id}/`, { token: younger.token })).status).toBe(200);
  });

  test('when the longest-standing member is suspended, then the community passes over them to the next active member', async () => {
    const owner = await aResident(app);
    const suspended = await aResident(app);
    const active = await aResident(app);
    const club = await aCommunity(app, owner);
    await joinCommunity(app, suspended, club.id);
    await joinCommunity(app, active, club.id);
    await sql('UPDATE users SET is_active = false WHERE id = $1', [suspended.id]);

    expect((await deleteAccount(owner)).status).toBe(204);

    expect(await sql('SELECT owner_id FROM communities WHERE id = $1', [club.id])).toEqual([{ owner_id: active.id }]);
  });

  test.each(['rest', 'socket'])('when every other member is suspended, then the longest-standing suspended member inherits the community, keeping its posts, and is told (deletion over %s)', async (via) => {
    const owner = await aResident(app);
    const elder = await aResident(app);
    const younger = await aResident(app);
    const club = await aCommunity(app, owner);
    await joinCommunity(app, elder, club.id);
    await joinCommunity(app, younger, club.id);
    const elders = await aPost(app, elder, { community_id: club.id });
    const youngers = await aPost(app, younger, { community_id: club.id });
    await sql('UPDATE users SET is_active = false WHERE id = ANY($1::uuid[])', [[elder.id, younger.id]]);

    const deleted = via === 'rest' ? await deleteAccount(owner) : await app.emit('users.profile_delete', { password: owner.password }, { token: owner.token });
    expect(deleted.status).toBe(204);

    expect(await sql('SELECT owner_id, members_count, posts_count FROM communities WHERE id = $1', [club.id])).toEqual([{ owner_id: elder.id, members_count: 2, posts_count: 2 }]);
    expect(await sql(`SELECT user_id, role FROM community_members WHERE community_id = $1 ORDER BY joined_at`, [club.id])).toEqual([
      { user_id: elder.id, role: 'owner' },
      { user_id: younger.id, role: 'member' },
    ]);
    expect(await sql('SELECT count(*)::int AS n FROM posts WHERE id = ANY($1::uuid[])', [[elders.id, youngers.id]])).toEqual([{ n: 2 }]);
    expect(await sql(`SELECT count(*)::int AS n FROM notifications WHERE user_id = $1 AND target_type = 'Community' AND target_id = $2`, [elder.id, club.id])).toEqual([{ n: 1 }]);

    // When the suspension is lifted, the community is theirs to run.
    await sql('UPDATE users SET is_active = true WHERE id = $1', [elder.id]);
    const login = await app.rest('POST', '/api/auth/login/', { body: { username: elder.username, password: elder.password } });
    expect(login.status).toBe(200);
    expect((await app.rest('GET', profilePath, { token: login.body.access_token })).body.owned_communities.map((c: { id: string }) => c.id)).toEqual([club.id]);
  });

  test('when an owner alone in its community is deleted, then the community is deleted as its owner would delete it, and a community it only belonged to counts it out', async () => {
    const owner = await aResident(app);
    const other = await aResident(app);
    const watcher = await aResident(app);
    const alone = await aCommunity(app, owner);
    const lonelyPost = await aPost(app, owner, { community_id: alone.id });
    const theirs = await aCommunity(app, other);
    await joinCommunity(app, owner, theirs.id);
    await aPost(app, owner, { community_id: theirs.id });
    const live = await app.socket(watcher.token);
    expect(await subscribe(live, 'community', alone.id)).toMatchObject({ status: 200 });
    const ended = nextEvent(live, 'community:deleted');
    const postGone = nextEvent(live, 'post:deleted');

    expect((await deleteAccount(owner)).status).toBe(204);

    expect(await ended).toEqual({ id: alone.id });
    expect(await postGone).toEqual({ id: lonelyPost.id });
    expect((await app.rest('GET', `/api/communities/communities/${alone.id}/`, { token: other.token })).status).toBe(404);
    expect((await app.rest('GET', `/api/communities/communities/${theirs.id}/`, { token: other.token })).body).toMatchObject({ members_count: 1, posts_count: 0 });
  });
});

describe('messages', () => {
  test('when one side of a conversation is deleted, then its messages stay for the other person, written by a deleted account, and nobody is left to write to', async () => {
    const leaver = await aResident(app);
    const alice = await aResident(app);
    const conversation = await aConversation(app, alice, leaver);
    const sent = await aMessage(app, leaver, conversation.id, 'Thanks for the ladder!');
    const reply = await aMessage(app, alice, conversation.id, 'Any time.');

    expect((await deleteAccount(leaver)).status).toBe(204);

    const overRest = await app.rest('GET', `/api/messages/conversations/${conversation.id}/messages/`, { token: alice.token });
    expect(overRest.status).toBe(200);
    expect(overRest.body.results).toEqual([
      { ...reply, sender: expect.objectContaining({ id: alice.id }) },
      { ...sent, sender: null },
    ]);
    const overSocket = await app.emit('messages.list', { conversation_id: conversation.id }, { token: alice.token });
    expect(overSocket).toEqual({ status: 200, body: overRest.body });
    const listed = (await app.rest('GET', '/api/messages/conversations/', { token: alice.token })).body.results;
    expect(listed).toContainEqual(expect.objectContaining({ id: conversation.id, participants: [], last_message: expect.objectContaining({ id: reply.id }) }));
    const refused = await app.rest('POST', `/api/messages/conversations/${conversation.id}/messages/`, { token: alice.token, body: { content: 'Hello?' } });
    expect(refused).toMatchObject({ status: 403, body: { detail: 'You cannot message this user.' } });
  });
});

describe('orders and stores', () => {
  test("when a buyer is deleted, then the seller keeps its orders with the buyer removed; an open one is cancelled, restocked and the seller told live; a shipped one stays", async () => {
    const { seller, product } = await aShopWithProduct(app, { stock: 10 });
    const buyer = await aResident(app);
    const open = await anOrder(app, buyer, product.id, 2);
    const shipped = await anOrder(app, buyer, product.id, 1);
    for (const status of ['processing', 'shipped']) {
      expect((await app.rest('PATCH', `/api/stores/orders/${shipped.id}/`, { token: seller.token, body: { status } })).status).toBe(200);
    }
    await app.rest('POST', '/api/stores/reviews/', { token: buyer.token, body: { product: product.id, rating: 4, comment: 'Good' } });
    const sellerPhone = await app.socket(seller.token);
    const updated = nextEvent(sellerPhone, 'order:updated');
    const since = await aMomentNow();

    expect((await deleteAccount(buyer)).status).toBe(204);

    expect(await updated).toMatchObject({ id: open.id, status: 'cancelled', user: null });
    const orders = (await app.rest('GET', '/api/stores/orders/', { token: seller.token, query: { role: 'seller' } })).body.results;
    expect(orders.map((o: { id: string; status: string; user: string | null }) => [o.id, o.status, o.user])).toEqual([
      [shipped.id, 'shipped', null],
      [open.id, 'cancelled', null],
    ]);
    expect((await app.rest('GET', `/api/stores/products/${product.id}/`)).body.stock).toBe(10 - 1);
    // A seller's phone that was away catches up on it as well (an order without a buyer is still the seller's).
    const synced = (await app.rest('GET', '/api/realtime/sync/', { token: seller.token, query: { since } })).body.orders;
    expect(synced).toEqual([expect.objectContaining({ id: open.id, status: 'cancelled', user: null })]);
    const told = (await app.rest('GET', '/api/notifications/', { token: seller.token })).body.results;
    expect(told).toContainEqual(expect.objectContaining({ target_id: open.id, target_type: 'Order', actor: null, message: expect.stringContaining('the buyer deleted their account') }));
    expect((await app.rest('GET', '/api/stores/reviews/', { query: { product: product.id } })).body.count).toBe(0);
  });

  test("when a seller is deleted, then its stores and products are gone, and each buyer keeps its order, the open one cancelled and told live", async () => {
    const seller = await aResident(app);
    const store = await aStore(app, seller);
    const product = await aProduct(app, seller, store.id, { stock: 5 });
    const buyer = await aResident(app);
    const order = await anOrder(app, buyer, product.id, 1);
    const buyerPhone = await app.socket(buyer.token);
    const updated = nextEvent(buyerPhone, 'order:updated');

    expect((await deleteAccount(seller)).status).toBe(204);

    expect(await updated).toMatchObject({ id: order.id, status: 'cancelled', user: buyer.id, product: null, store: null });
    expect((await app.rest('GET', `/api/stores/stores/${store.id}/`)).status).toBe(404);
    expect((await app.rest('GET', `/api/stores/products/${product.id}/`)).status).toBe(404);
    const mine = (await app.rest('GET', '/api/stores/orders/', { token: buyer.token })).body.results;
    expect(mine).toEqual([expect.objectContaining({ id: order.id, status: 'cancelled', user: buyer.id, product: null, store: null, total_price: order.total_price })]);
    const told = (await app.rest('GET', '/api/notifications/', { token: buyer.token })).body.results;
    expect(told).toContainEqual(expect.objectContaining({ target_id: order.id, message: expect.stringContaining('the seller deleted their account') }));
  });
});

describe('stored files', () => {
  test('when the account is deleted, then its profile picture, post images, store logo and product images leave storage after the commit', async () => {
    const leaver = await aResidentOf(app);
    const auth = `Bearer ${leaver.token}`;
    const profile = await app.http().patch(profilePath).set('Authorization', auth).attach('profile_picture', PNG_1X1, 'me.png');
    const post = await app.http().post('/api/feed/posts/').set('Authorization', auth).field('post_type', 'image').attach('media', PNG_1X1, 'p.png');
    const slug = `leaving${Date.now()}`;
    const store = await app.http().post('/api/stores/stores/').set('Authorization', auth).field('name', 'Gone shop').field('slug', slug).attach('logo', PNG_1X1, 'l.png');
    const product = await app.http().post('/api/stores/products/').set('Authorization', auth)
      .field('store_id', store.body.id).field('name', 'Gone thing').field('category', 'misc').field('stock', '1').field('price', '1.00')
      .attach('uploaded_images', PNG_1X1, 'i.png');
    expect([profile.status, post.status, store.status, product.status]).toEqual([200, 201, 201, 201]);
    const files = [profile.body.profile_picture, post.body.media[0].file, store.body.logo, product.body.images[0].image].map(mediaFile);
    for (const file of files) expect(fs.existsSync(file)).toBe(true);

    expect((await deleteAccount(leaver)).status).toBe(204);

    const keys = files.map((f) => path.relative(path.join(app.dataDir, 'media'), f));
    const queued = async () => (await sql('SELECT count(*)::int AS n FROM file_deletions WHERE key = ANY($1)', [keys]))[0].n;
    // Deleted after the commit, then their queue rows: nothing is left to retry.
    expect(await eventually(async () => files.every((f) => !fs.existsSync(f)) && (await queued()) === 0, 5000)).toBe(true);
  });
});
