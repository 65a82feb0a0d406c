import type { Socket } from 'socket.io-client';
import { eventually, nextEvent, noEvent, startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { hears } from '../helpers/cluster.js';
import { sql } from '../helpers/sql.js';
import { openApiFit } from '../helpers/openapi-fit.js';
import type { TestUser } from '../builders/users.js';
import { aComment, aNeighbourhood, aPost, aResidentOf, type Neighbourhood } from '../builders/posts.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { aResident } from '../builders/locations.js';
import { aBlock, aReport, established } from '../builders/safety.js';
import { aCommunity } from '../builders/communities.js';
import { residentsRoom } from '../../src/realtime/rooms.js';
import { platform } from '../../src/platform/index.js';
import { domainEvents } from '../../src/core/events.js';

/**
 * Moderation (DESIGN.md section 9): the staff queue, resolving a report (dismiss, hide, suspend), auto-hide and the
 * moderation log, over both transports. A hidden post is the one post rule's business (404 but for its author and
 * staff), so these tests read it back through every path a reader has: by id, feeds, lists, live pushes, sync.
 */
const AUTO_HIDE = 3;
const ADMIN = { email: `${unique('mod')}@example.test`, password: 'moderator-password-' + unique() };
let app: TestApp;
let doc: any;
let staff: { token: string; id: string; username: string };
beforeAll(async () => {
  app = await startTestApp({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, MODERATION_AUTO_HIDE_REPORTS: String(AUTO_HIDE) });
  const login = await app.rest('POST', '/api/auth/login/', { body: { username: ADMIN.email, password: ADMIN.password } });
  if (login.status !== 200) throw new Error(`admin login answered ${login.status}`);
  staff = { token: login.body.access_token, id: login.body.user.id, username: login.body.user.username };
  doc = (await app.rest('GET', '/api/docs/openapi.json')).body;
  // A test database kept from an earlier run holds its open cases: start from an empty queue, as a new one does.
  await sql(`UPDATE moderation_cases SET status = 'resolved', resolved_at = now() WHERE status = 'open'`);
});
afterAll(async () => {
  await app.stop();
});

const { successSchema, expectBodyFits } = openApiFit(() => doc);
const FORBIDDEN = { detail: 'You do not have permission to perform this action.' };
const NOT_FOUND = { detail: 'Not found.' };
const OWN_CASE = { detail: 'You cannot resolve a report about yourself or your own content.' };
const summary = (u: TestUser) => ({ id: u.id, username: u.username, display_name: u.body.display_name, profile_picture: null });
const ids = (items: Array<{ id: string }>) => items.map((i) => i.id);

const resolve = (caseId: string, body: Record<string, unknown>, token = staff.token) => app.rest('POST', `/api/admin/reports/${caseId}/resolve/`, { token, body });
const readPost = (postId: string, user?: TestUser) => app.rest('GET', `/api/feed/posts/${postId}/`, { token: user?.token });
const feedIds = async (user: TestUser) => ids((await app.rest('GET', '/api/feed/hybrid/neighbourhood/', { token: user.token })).body.items);
const syncSince = (user: TestUser, since: string) => app.rest('GET', '/api/realtime/sync/', { token: user.token, query: { since } });
const subscribe = (s: Socket, channel: string, id: string) => s.timeout(5000).emitWithAck('subscribe', { channel, id });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every open entry of the queue, in its order. */
async function openQueue(): Promise<any[]> {
  const entries: any[] = [];
  for (let page = 1; ; page++) {
    const res = await app.rest('GET', '/api/admin/reports/', { token: staff.token, query: { page, page_size: 100 } });
    entries.push(...res.body.results);
    if (!res.body.next) return entries;
  }
}
const caseOf = async (targetId: string) => (await openQueue()).find((e) => e.target_id === targetId);

/** A place with bob's post in it, alice and carol living there too. */
async function aStreet(): Promise<{ place: Neighbourhood; bob: TestUser; alice: TestUser; carol: TestUser; post: any }> {
  const place = await aNeighbourhood(app);
  const [bob, alice, carol] = [await aResidentOf(app, place), await aResidentOf(app, place), await aResidentOf(app, place)];
  return { place, bob, alice, carol, post: await aPost(app, bob) };
}

/** A socket of `user` that hears their place's room. */
async function aResidentSocket(user: TestUser, locationId: string): Promise<Socket> {
  const socket = await app.socket(user.token);
  expect(await eventually(() => hears(app, socket, residentsRoom(locationId)))).toBe(true);
  return socket;
}

/** An ISO instant strictly between what came before and what comes after. */
async function aMomentNow(): Promise<string> {
  await pause(5);
  const at = new Date().toISOString();
  await pause(5);
  return at;
}

describe('who may moderate', () => {
  test('when a user who is not staff calls the three operations, then 403 with the contract body on both transports; anonymous 401; staff 200', async () => {
    const alice = await aResident(app);
    const calls: Array<[string, string, string, Record<string, unknown>]> = [
      ['GET', '/api/admin/reports/', 'admin.reports_list', {}],
      ['POST', `/api/admin/reports/${alice.id}/resolve/`, 'admin.reports_resolve', { id: alice.id, action: 'dismiss' }],
      ['GET', '/api/admin/moderation-log/', 'admin.moderation_log', {}],
    ];
    for (const [method, path, name, input] of calls) {
      expect(await app.rest(method, path, { token: alice.token, body: method === 'POST' ? input : undefined })).toMatchObject({ status: 403, body: FORBIDDEN });
      expect(await app.emit(name, input, { token: alice.token })).toEqual({ status: 403, body: FORBIDDEN });
      expect((await app.rest(method, path, { body: method === 'POST' ? input : undefined })).status).toBe(401);
    }
    // Staff without administrator rights moderate too.
    const moderator = await aResident(app);
    expect((await app.rest('PATCH', `/api/admin/users/${moderator.username}/`, { token: staff.token, body: { is_staff: true } })).status).toBe(200);
    expect((await app.rest('GET', '/api/admin/reports/', { token: moderator.token })).status).toBe(200);
    expect((await app.rest('GET', '/api/admin/moderation-log/', { token: moderator.token })).status).toBe(200);
  });
});

describe('staff and their own cases', () => {
  /** A resident of `place` made staff by the administrator. */
  async function aModeratorOf(place: Neighbourhood): Promise<TestUser> {
    const moderator = await aResidentOf(app, place);
    expect((await app.rest('PATCH', `/api/admin/users/${moderator.username}/`, { token: staff.token, body: { is_staff: true } })).status).toBe(200);
    return moderator;
  }

  test('when a staff member resolves the case about their own auto-hidden post, then 403 on both transports for every action, and it stays hidden and open until another staff member decides', async () => {
    const place = await aNeighbourhood(app);
    const moderator = await aModeratorOf(place);
    const reader = await aResidentOf(app, place);
    const post = await aPost(app, moderator);
    const reporters = await Promise.all(Array.from({ length: AUTO_HIDE }, () => aResidentOf(app, place)));
    await established(...reporters);
    for (const r of reporters) await aReport(app, r, 'post', post.id);
    expect((await readPost(post.id, reader)).status).toBe(404);
    const entry = await caseOf(post.id);

    for (const action of ['dismiss', 'hide', 'suspend']) {
      expect(await resolve(entry.id, { action }, moderator.token)).toMatchObject({ status: 403, body: OWN_CASE });
      expect(await app.emit('admin.reports_resolve', { id: entry.id, action }, { token: moderator.token })).toEqual({ status: 403, body: OWN_CASE });
    }
    expect((await readPost(post.id, reader)).status).toBe(404);
    expect(await caseOf(post.id)).toMatchObject({ id: entry.id, status: 'open', content_state: 'hidden' });
    expect(await sql(`SELECT count(*)::int AS n FROM moderation_log WHERE case_id = $1 AND moderator_id = $2`, [entry.id, moderator.id])).toEqual([{ n: 0 }]);

    // Another staff member may.
    expect(await resolve(entry.id, { action: 'dismiss' })).toMatchObject({ status: 200, body: { status: 'resolved', content_state: 'visible' } });
    expect((await readPost(post.id, reader)).status).toBe(200);
  });

  test('when a staff member resolves the case about their own account or their own comment, then 403 on both transports', async () => {
    const place = await aNeighbourhood(app);
    const moderator = await aModeratorOf(place);
    const [alice, bob] = [await aResidentOf(app, place), await aResidentOf(app, place)];
    const comment = await aComment(app, moderator, (await aPost(app, bob)).id);
    await aReport(app, alice, 'user', moderator.id);
    await aReport(app, alice, 'comment', comment.id);
    for (const targetId of [moderator.id, comment.id]) {
      const entry = await caseOf(targetId);
      expect(await resolve(entry.id, { action: 'dismiss' }, moderator.token)).toMatchObject({ status: 403, body: OWN_CASE });
      expect(await app.emit('admin.reports_resolve', { id: entry.id, action: 'dismiss' }, { token: moderator.token })).toEqual({ status: 403, body: OWN_CASE });
      expect(await caseOf(targetId)).toMatchObject({ id: entry.id, status: 'open' });
    }
  });
});

describe('the queue', () => {
  test('when three people report one post, then it is one entry with its snapshot, three distinct reporters and their reasons; oldest open first; REST and socket agree', async () => {
    const { bob, alice, carol, place, post } = await aStreet();
    const dave = await aResidentOf(app, place);
    await aReport(app, alice, 'post', post.id, { reason: 'spam', details: 'Links to a shop' });
    await aReport(app, carol, 'post', post.id, { reason: 'scam' });
    await aReport(app, dave, 'post', post.id, { reason: 'spam' });
    await aReport(app, alice, 'post', post.id, { reason: 'spam' });
    const later = await aPost(app, bob);
    await aReport(app, alice, 'post', later.id);

    const queue = await openQueue();
    const mine = queue.filter((e) => [post.id, later.id].includes(e.target_id));
    expect(mine.map((e) => e.target_id)).toEqual([post.id, later.id]);
    const [entry] = mine;
    expect(entry).toMatchObject({
      target_type: 'post',
      target_id: post.id,
      status: 'open',
      owner: summary(bob),
      content_state: 'visible',
      reporters_count: 3,
      reasons: { scam: 1, spam: 2 },
      auto_hidden_at: null,
      resolution: null,
    });
    expect(entry.reports.map((r: any) => r.reporter.id)).toEqual([dave.id, carol.id, alice.id]);
    expect(entry.reports[2]).toMatchObject({ reason: 'spam', details: 'Links to a shop', created_at: expect.stringMatching(/Z$/) });
    // The snapshot is the post as its read shows it (to an anonymous reader) when it was first reported.
    const read = (await readPost(post.id)).body;
    expect(entry.snapshot).toEqual({ ...read, views_count: entry.snapshot.views_count });

    const rest = await app.rest('GET', '/api/admin/reports/', { token: staff.token, query: { status: 'open', page_size: 100 } });
    expectBodyFits(successSchema('/api/admin/reports/'), rest.body, 'admin.reports_list');
    expect(await app.emit('admin.reports_list', { status: 'open', page_size: 100 }, { token: staff.token })).toEqual({ status: 200, body: rest.body });
  });

  test("when a message is reported, then its entry shows that message alone, never the rest of the conversation", async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const conversation = await aConversation(app, alice, bob);
    await aMessage(app, alice, conversation.id, 'a private word before');
    const message = await aMessage(app, bob, conversation.id, 'the abusive one');
    await aMessage(app, alice, conversation.id, 'a private word after');
    await aReport(app, alice, 'message', message.id, { reason: 'harassment' });
    const entry = await caseOf(message.id);
    expect(entry.snapshot).toEqual(message);
    expect(entry.owner).toEqual(summary(bob));
    expect(JSON.stringify(entry)).not.toContain('a private word');
  });

  test('when the author deletes a reported post, then its entry keeps the snapshot taken at report time and says it is gone', async () => {
    const { bob, alice, post } = await aStreet();
    await aReport(app, alice, 'post', post.id);
    expect((await app.rest('DELETE', `/api/feed/posts/${post.id}/`, { token: bob.token })).status).toBe(204);
    const entry = await caseOf(post.id);
    expect(entry).toMatchObject({ content_state: 'gone', snapshot: { id: post.id, content: post.content } });
  });

  test('when the queue is asked for resolved reports, then it lists them most recently resolved first; a wrong status is a field error', async () => {
    const [alice, bob, carol] = [await aResident(app), await aResident(app), await aResident(app)];
    const first = await aReport(app, alice, 'user', bob.id);
    const second = await aReport(app, alice, 'user', carol.id);
    const cases = [await caseOf(bob.id), await caseOf(carol.id)];
    for (const c of cases) expect((await resolve(c.id, { action: 'dismiss' })).status).toBe(200);
    const resolved = await app.rest('GET', '/api/admin/reports/', { token: staff.token, query: { status: 'resolved', page_size: 1 } });
    expect(resolved.body.results.map((e: any) => e.id)).toEqual([cases[1].id]);
    expect(resolved.body.next).toContain('/api/admin/reports/?status=resolved&page=2&page_size=1');
    const next = await app.rest('GET', '/api/admin/reports/', { token: staff.token, query: { status: 'resolved', page: 2, page_size: 1 } });
    expect(next.body.results.map((e: any) => e.id)).toEqual([cases[0].id]);
    expect(await app.rest('GET', '/api/admin/reports/', { token: staff.token, query: { status: 'pending' } })).toMatchObject({ status: 400, body: { status: ['"pending" is not a valid choice.'] } });
    // The reporter sees their reports resolved.
    const mine = (await app.rest('GET', '/api/safety/reports/', { token: alice.token })).body.results;
    expect(mine).toEqual([{ ...second, status: 'resolved' }, { ...first, status: 'resolved' }]);
  });
});

describe('hide', () => {
  test('when staff hide a post, then it is 404 for others and 200 for its author and staff, gone from their feed and lists, post:deleted is pushed live (not to the author) and sync lists it in deleted', async () => {
    const { place, bob, alice, carol, post } = await aStreet();
    const carolSocket = await aResidentSocket(carol, place.locationId);
    const bobSocket = await aResidentSocket(bob, place.locationId);
    const watcher = await app.socket();
    expect(await subscribe(watcher, 'post', post.id)).toMatchObject({ status: 200 });
    expect(await feedIds(carol)).toContain(post.id);
    await aReport(app, alice, 'post', post.id, { reason: 'hate' });
    const entry = await caseOf(post.id);
    const since = await aMomentNow();

    const toCarol = nextEvent(carolSocket, 'post:deleted');
    const toWatcher = nextEvent(watcher, 'post:deleted');
    const notToBob = noEvent(bobSocket, 'post:deleted', 1000);
    const resolved = await resolve(entry.id, { action: 'hide', note: 'Hateful' });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ id: entry.id, status: 'resolved', content_state: 'hidden', resolution: { action: 'hide', note: 'Hateful', moderator: { id: staff.id } } });
    expectBodyFits(successSchema('/api/admin/reports/{id}/resolve/', 'post'), resolved.body, 'admin.reports_resolve');
    expect(await toCarol).toEqual({ id: post.id });
    expect(await toWatcher).toEqual({ id: post.id });
    await notToBob;

    // By id: the one post rule, on both transports and for anonymous readers.
    expect(await readPost(post.id, carol)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await app.emit('posts.get', { post_id: post.id }, { token: carol.token })).toEqual({ status: 404, body: NOT_FOUND });
    expect(await readPost(post.id)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect((await readPost(post.id, bob)).status).toBe(200);
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/`, { token: staff.token })).status).toBe(200);
    expect((await app.rest('GET', `/api/posts/posts/${post.id}/comments/`, { token: carol.token })).status).toBe(404);
    expect(await subscribe(await app.socket(carol.token), 'post', post.id)).toEqual({ status: 404, body: NOT_FOUND });
    // Nor touch it by id: a like, a bookmark or a comment is answered as for a missing post.
    expect((await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: carol.token })).status).toBe(404);
    expect((await app.rest('POST', `/api/feed/posts/${post.id}/bookmark/`, { token: carol.token })).status).toBe(404);
    expect((await app.rest('POST', '/api/posts/comments/', { token: carol.token, body: { post: post.id, content: 'still here?' } })).status).toBe(400);
    // Nobody else can report it any more: they cannot see it.
    expect((await app.rest('POST', '/api/safety/reports/', { token: carol.token, body: { target_type: 'post', target_id: post.id, reason: 'spam' } })).status).toBe(404);

    // Feeds and lists: gone for others, kept for the author.
    expect(await feedIds(carol)).not.toContain(post.id);
    expect(await feedIds(bob)).toContain(post.id);
    const byLocation = await app.rest('GET', '/api/posts/by-location/', { token: carol.token, query: { location_id: place.locationId } });
    expect(ids(byLocation.body.posts)).not.toContain(post.id);

    // Sync: in `deleted` for a neighbour who was offline, not for the author who keeps it.
    const carolSync = (await syncSince(carol, since)).body;
    expect(carolSync.deleted).toEqual([{ type: 'post', id: post.id, deleted_at: expect.any(String) }]);
    expect((await syncSince(bob, since)).body.deleted).toEqual([]);
  });

  test('when staff hide a comment, then it leaves the comment list for everyone but its author, and sync lists it in deleted', async () => {
    const { place, bob, alice, carol } = await aStreet();
    const post = await aPost(app, carol);
    const comment = await aComment(app, bob, post.id);
    const kept = await aComment(app, alice, post.id);
    const reply = await aComment(app, alice, post.id, { parent: comment.id });
    await aReport(app, carol, 'comment', comment.id, { reason: 'harassment' });
    const entry = await caseOf(comment.id);
    expect(entry).toMatchObject({ target_type: 'comment', owner: summary(bob), snapshot: { id: comment.id, content: comment.content } });
    const since = await aMomentNow();
    expect((await resolve(entry.id, { action: 'hide' })).status).toBe(200);

    const listed = async (user: TestUser) => ids((await app.rest('GET', `/api/posts/posts/${post.id}/comments/`, { token: user.token })).body.results);
    expect(await listed(carol)).toEqual([kept.id]);
    expect(await listed(bob)).toEqual([comment.id, kept.id]);
    expect((await app.rest('GET', `/api/posts/posts/${post.id}/comments/`)).body).toMatchObject({ count: 1 });
    // Its replies hang on it: not reachable through it for others, still for its author.
    expect((await app.rest('GET', '/api/posts/comments/replies/', { token: carol.token, query: { parent_id: comment.id } })).status).toBe(404);
    expect((await app.rest('GET', '/api/posts/comments/replies/', { token: bob.token, query: { parent_id: comment.id } })).body.results.map((c: any) => c.id)).toEqual([reply.id]);
    expect((await syncSince(carol, since)).body.deleted).toEqual([{ type: 'comment', id: comment.id, deleted_at: expect.any(String) }]);
    expect(place.locationId).toBeDefined();
  });

  test('when a hidden post\'s author is then blocked by a reader, then that reader\'s sync lists the post in deleted once', async () => {
    const { alice, carol, bob, post } = await aStreet();
    const comment = await aComment(app, bob, (await aPost(app, carol)).id);
    await aReport(app, alice, 'post', post.id);
    const since = await aMomentNow();
    expect((await resolve((await caseOf(post.id)).id, { action: 'hide' })).status).toBe(200);
    await aBlock(app, alice, bob);
    const deleted = (await syncSince(alice, since)).body.deleted;
    expect(deleted.map((d: { type: string; id: string }) => `${d.type}:${d.id}`).sort()).toEqual([`comment:${comment.id}`, `post:${post.id}`].sort());
  });

  test('when staff try to hide a user, store, product, community or message, then 400 on action and the report stays open', async () => {
    const [alice, bob] = [await aResident(app), await aResident(app)];
    await aReport(app, alice, 'user', bob.id);
    const entry = await caseOf(bob.id);
    const rest = await resolve(entry.id, { action: 'hide' });
    expect(rest).toMatchObject({ status: 400, body: { action: ['A user cannot be hidden: suspend its owner, or dismiss the report.'] } });
    expect(await app.emit('admin.reports_resolve', { id: entry.id, action: 'hide' }, { token: staff.token })).toEqual({ status: 400, body: rest.body });
    expect((await caseOf(bob.id)).status).toBe('open');
  });
});

describe('what a hidden post and a hidden comment still let through (nothing)', () => {
  test('when a post is hidden, then its watchers leave its room: the author\'s later comment, the stats and the poll reach only the author\'s devices', async () => {
    const { place, bob, alice, post } = await aStreet();
    const watcher = await app.socket();
    expect(await subscribe(watcher, 'post', post.id)).toMatchObject({ status: 200 });
    const neighbour = await aResidentSocket(alice, place.locationId);
    const bobWatching = await app.socket(bob.token);
    expect(await subscribe(bobWatching, 'post', post.id)).toMatchObject({ status: 200 });
    await aReport(app, alice, 'post', post.id);
    const gone = nextEvent(watcher, 'post:deleted');
    expect((await resolve((await caseOf(post.id)).id, { action: 'hide' })).status).toBe(200);
    await gone;

    const bobHears = nextEvent(bobWatching, 'comment:created');
    const silence = [noEvent(watcher, 'comment:created', 1500), noEvent(watcher, 'post:stats', 1500), noEvent(neighbour, 'post:stats', 1500)];
    await aComment(app, bob, post.id, { content: 'still mine' });
    expect((await bobHears).content).toBe('still mine');
    await Promise.all(silence);
  });

  test('when a community post is hidden while its members are still being told of it, then the telling stops', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    const post = await aPost(app, owner, { community_id: club.id });
    // The fan-out as a big community leaves it between two batches (the members written so far, the rest to come).
    await sql(`INSERT INTO community_post_fanouts (post_id, community_id, actor_id, message) VALUES ($1, $2, $3, 'new post')
      ON CONFLICT (post_id) DO NOTHING`, [post.id, club.id, owner.id]);
    await aReport(app, await aResident(app), 'post', post.id);
    expect((await resolve((await caseOf(post.id)).id, { action: 'hide' })).status).toBe(200);
    expect(await sql('SELECT count(*)::int AS n FROM community_post_fanouts WHERE post_id = $1', [post.id])).toEqual([{ n: 0 }]);
  });

  test('when a comment is hidden, then nobody else can reply to it, nor like or bookmark a reply under it; its author still can', async () => {
    const { bob, alice, carol, post } = await aStreet();
    const comment = await aComment(app, carol, post.id);
    const reply = await aComment(app, bob, post.id, { parent: comment.id });
    await aReport(app, alice, 'comment', comment.id);
    expect((await resolve((await caseOf(comment.id)).id, { action: 'hide' })).status).toBe(200);

    const answer = await app.rest('POST', '/api/posts/comments/', { token: alice.token, body: { post: post.id, content: 'hello?', parent: comment.id } });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('Comment not found.');
    expect((await app.rest('POST', `/api/posts/comments/${reply.id}/like/`, { token: alice.token })).status).toBe(404);
    expect((await app.rest('POST', `/api/posts/comments/${reply.id}/bookmark/`, { token: alice.token })).status).toBe(404);
    const deeper = await app.rest('POST', '/api/posts/comments/', { token: alice.token, body: { post: post.id, content: 'deeper', parent: reply.id } });
    expect(deeper.status).toBe(400);
    expect(JSON.stringify(deeper.body)).toContain('Comment not found.');
    expect((await app.rest('POST', '/api/posts/comments/', { token: carol.token, body: { post: post.id, content: 'my own thread', parent: comment.id } })).status).toBe(201);
  });
});

describe('suspend', () => {
  test('when a staff member who is not an administrator is asked to suspend an administrator, then 400 on action and the account stays active', async () => {
    const moderator = await aResident(app);
    await sql('UPDATE users SET is_staff = true WHERE id = $1', [moderator.id]);
    domainEvents.publish('user.access_changed', { userId: moderator.id });
    const reporter = await aResident(app);
    await aReport(app, reporter, 'user', staff.id);
    const entry = await caseOf(staff.id);

    const refused = await resolve(entry.id, { action: 'suspend' }, moderator.token);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('Only an administrator can suspend a staff account.');
    expect(await sql('SELECT is_active FROM users WHERE id = $1', [staff.id])).toEqual([{ is_active: true }]);
    expect((await resolve(entry.id, { action: 'dismiss' }, moderator.token)).status).toBe(200);
  });

  test("when staff suspend a post's author, then every session of the author ends at once (live socket closed, tokens refused, no login) and the post is hidden", async () => {
    const { place, bob, alice, carol, post } = await aStreet();
    const bobSocket = await aResidentSocket(bob, place.locationId);
    await aReport(app, alice, 'post', post.id, { reason: 'violence' });
    const entry = await caseOf(post.id);
    const dropped = nextEvent(bobSocket, 'disconnect');

    const resolved = await app.emit('admin.reports_resolve', { id: entry.id, action: 'suspend', note: 'Threats' }, { token: staff.token });
    expect(resolved).toMatchObject({ status: 200, body: { status: 'resolved', content_state: 'hidden', resolution: { action: 'suspend', note: 'Threats' } } });
    expect(await dropped).toBe('io server disconnect');
    expect(await app.rest('GET', '/api/users/profile/', { token: bob.token })).toMatchObject({ status: 401, body: { detail: 'Given token not valid for any token type' } });
    await expect(app.socket(bob.token)).rejects.toThrow('unauthorized');
    expect((await app.rest('POST', '/api/auth/refresh/', { body: { refresh: bob.refresh } })).status).toBe(401);
    expect(await app.rest('POST', '/api/auth/login/', { body: { username: bob.username, password: bob.password } })).toMatchObject({ status: 401, body: { error: 'Invalid credentials' } });
    expect((await readPost(post.id, carol)).status).toBe(404);
    const [row] = await sql('SELECT is_active FROM users WHERE id = $1', [bob.id]);
    expect(row.is_active).toBe(false);
  });

  test('when a reported user is suspended, then the account is deactivated and its entry says suspended; staff cannot suspend themselves', async () => {
    const [alice, bob] = [await aResident(app), await aResident(app)];
    await aReport(app, alice, 'user', bob.id, { reason: 'scam' });
    const resolved = await resolve((await caseOf(bob.id)).id, { action: 'suspend' });
    expect(resolved).toMatchObject({ status: 200, body: { content_state: 'suspended', owner: { id: bob.id } } });
    expect((await app.rest('GET', `/api/users/${bob.username}`)).status).toBe(404);

    // A moderator whose own account is reported.
    const moderator = await aResident(app);
    await app.rest('PATCH', `/api/admin/users/${moderator.username}/`, { token: staff.token, body: { is_staff: true } });
    await aReport(app, alice, 'user', moderator.id);
    const own = await caseOf(moderator.id);
    expect(await resolve(own.id, { action: 'suspend' }, moderator.token)).toMatchObject({ status: 403, body: OWN_CASE });
  });
});

describe('dismiss and the answers of resolve', () => {
  test('when staff dismiss a report, then it is resolved and the thing stays; resolving it again is 400; unknown 404; a wrong action a field error', async () => {
    const { alice, carol, post } = await aStreet();
    await aReport(app, alice, 'post', post.id);
    const entry = await caseOf(post.id);
    expect(await resolve(entry.id, { action: 'dismiss' })).toMatchObject({ status: 200, body: { status: 'resolved', content_state: 'visible', resolution: { action: 'dismiss', note: null } } });
    expect((await readPost(post.id, carol)).status).toBe(200);
    expect(await resolve(entry.id, { action: 'hide' })).toMatchObject({ status: 400, body: { detail: 'This report is already resolved.' } });
    expect(await resolve('00000000-0000-4000-8000-000000000000', { action: 'dismiss' })).toMatchObject({ status: 404, body: NOT_FOUND });
    const wrong = await resolve(entry.id, { action: 'ban', note: 'n'.repeat(1001) });
    expect(wrong).toMatchObject({ status: 400, body: { action: ['"ban" is not a valid choice.'], note: ['Ensure this field has no more than 1000 characters.'] } });
    // Reported again after the dismissal: a new case, and the reporter's new report.
    const again = await app.rest('POST', '/api/safety/reports/', { token: alice.token, body: { target_type: 'post', target_id: post.id, reason: 'spam' } });
    expect(again.status).toBe(201);
    expect((await caseOf(post.id)).id).not.toBe(entry.id);
  });
});

describe('auto-hide', () => {
  test(`when ${AUTO_HIDE} established accounts report a post, then it is hidden at once pending review (the report stays open), and not before`, async () => {
    const { place, bob, carol, post } = await aStreet();
    const reporters = [await aResidentOf(app, place), await aResidentOf(app, place), await aResidentOf(app, place)];
    await established(...reporters);
    for (const r of reporters.slice(0, AUTO_HIDE - 1)) await aReport(app, r, 'post', post.id);
    expect((await readPost(post.id, carol)).status).toBe(200);
    await aReport(app, reporters[AUTO_HIDE - 1], 'post', post.id);
    expect((await readPost(post.id, carol)).status).toBe(404);
    expect((await readPost(post.id, bob)).status).toBe(200);
    const entry = await caseOf(post.id);
    expect(entry).toMatchObject({ status: 'open', content_state: 'hidden', auto_hidden_at: expect.stringMatching(/Z$/), reporters_count: AUTO_HIDE });
    const mine = (await app.rest('GET', '/api/safety/reports/', { token: reporters[0].token })).body.results;
    expect(mine[0]).toMatchObject({ target_id: post.id, status: 'open' });
    const log = (await app.rest('GET', '/api/admin/moderation-log/', { token: staff.token, query: { page_size: 100 } })).body.results;
    expect(log.find((e: any) => e.target_id === post.id)).toMatchObject({ action: 'auto_hide', moderator: null, report_id: entry.id, subject: summary(bob) });
  });

  test('when the reporters are new accounts (a week old or less), then their reports hide nothing, however many', async () => {
    const { place, carol, post } = await aStreet();
    const young = [await aResidentOf(app, place), await aResidentOf(app, place), await aResidentOf(app, place), await aResidentOf(app, place)];
    const old = [await aResidentOf(app, place), await aResidentOf(app, place)];
    await established(...old);
    for (const r of [...young, ...old]) await aReport(app, r, 'post', post.id);
    expect((await readPost(post.id, carol)).status).toBe(200);
    expect(await caseOf(post.id)).toMatchObject({ reporters_count: 6, content_state: 'visible', auto_hidden_at: null });
  });

  /** What auto-hide left for one post: hides logged, tombstones, cases. */
  const autoHideTraces = async (postId: string) =>
    (
      await sql(
        `SELECT (SELECT count(*)::int FROM moderation_log WHERE target_id = $1 AND action = 'auto_hide') AS hides,
                (SELECT count(*)::int FROM deletions WHERE item_id = $1) AS tombstones,
                (SELECT count(*)::int FROM moderation_cases WHERE target_id = $1) AS cases`,
        [postId],
      )
    )[0];
  const reportAll = (reporters: TestUser[], postId: string) =>
    Promise.all(reporters.map((r) => app.rest('POST', '/api/safety/reports/', { token: r.token, body: { target_type: 'post', target_id: postId, reason: 'spam' } })));

  test('when established reports arrive at the same moment, then the post is hidden exactly once', async () => {
    const { place, carol, post } = await aStreet();
    const racing = await Promise.all(Array.from({ length: 5 }, () => aResidentOf(app, place)));
    await established(...racing);
    expect((await reportAll(racing, post.id)).map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expect((await readPost(post.id, carol)).status).toBe(404);
    expect(await autoHideTraces(post.id)).toEqual({ hides: 1, tombstones: 1, cases: 1 });
  });

  // Held at the gate (a lock on safety_reports), the two reports that reach the threshold together are let go at
  // once: counted without the case's row lock, each would see one report too few and the post would stay up.
  (process.env.TEST_EMBEDDED ? test.skip : test)('when the reports that reach the threshold are counted at the same moment, then the threshold is not missed', async () => {
    const { place, carol, post } = await aStreet();
    const [first, ...racing] = [await aResidentOf(app, place), await aResidentOf(app, place), await aResidentOf(app, place)];
    await established(first, ...racing);
    await aReport(app, first, 'post', post.id);
    const gate = await platform.database.pool.connect();
    try {
      await gate.query('BEGIN');
      await gate.query('LOCK TABLE safety_reports IN SHARE MODE');
      const answers = reportAll(racing, post.id);
      const waiting = async () =>
        (await gate.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`)).rows[0].n >= racing.length;
      expect(await eventually(waiting, 5000)).toBe(true);
      await gate.query('ROLLBACK');
      expect((await answers).map((a) => a.status)).toEqual([201, 201]);
    } finally {
      gate.release();
    }
    expect((await readPost(post.id, carol)).status).toBe(404);
    expect(await autoHideTraces(post.id)).toEqual({ hides: 1, tombstones: 1, cases: 1 });
  });

  test('when staff dismiss a report of an auto-hidden post, then it comes back: readable, in feeds, in sync posts and no longer in deleted', async () => {
    const { place, carol, post } = await aStreet();
    const reporters = [await aResidentOf(app, place), await aResidentOf(app, place), await aResidentOf(app, place)];
    await established(...reporters);
    const since = await aMomentNow();
    for (const r of reporters) await aReport(app, r, 'post', post.id);
    expect((await readPost(post.id, carol)).status).toBe(404);
    expect((await syncSince(carol, since)).body.deleted.map((d: any) => d.id)).toEqual([post.id]);

    expect(await resolve((await caseOf(post.id)).id, { action: 'dismiss', note: 'Satire' })).toMatchObject({ status: 200, body: { content_state: 'visible' } });
    expect((await readPost(post.id, carol)).status).toBe(200);
    expect(await feedIds(carol)).toContain(post.id);
    const sync = (await syncSince(carol, since)).body;
    expect(sync.deleted).toEqual([]);
    expect(ids(sync.posts)).toContain(post.id);
  });
});

describe('a dismissal and the reporters it counted', () => {
  test(`when staff dismiss an auto-hidden post, then its ${AUTO_HIDE} reporters reporting it again hide nothing; ${AUTO_HIDE} new established reporters hide it again`, async () => {
    const { place, carol, post } = await aStreet();
    const brigade = await Promise.all(Array.from({ length: AUTO_HIDE }, () => aResidentOf(app, place)));
    const newcomers = await Promise.all(Array.from({ length: AUTO_HIDE }, () => aResidentOf(app, place)));
    await established(...brigade, ...newcomers);
    for (const r of brigade) await aReport(app, r, 'post', post.id);
    expect((await readPost(post.id, carol)).status).toBe(404);
    expect(await resolve((await caseOf(post.id)).id, { action: 'dismiss' })).toMatchObject({ status: 200, body: { content_state: 'visible' } });

    // The same people again: new reports in a new case, counted there, but they hide nothing.
    for (const r of brigade) expect((await app.rest('POST', '/api/safety/reports/', { token: r.token, body: { target_type: 'post', target_id: post.id, reason: 'hate' } })).status).toBe(201);
    expect((await readPost(post.id, carol)).status).toBe(200);
    const second = await caseOf(post.id);
    expect(second).toMatchObject({ reporters_count: AUTO_HIDE, content_state: 'visible', auto_hidden_at: null });

    // New people: one short of the threshold hides nothing, the last one hides it.
    for (const r of newcomers.slice(0, AUTO_HIDE - 1)) await aReport(app, r, 'post', post.id);
    expect((await readPost(post.id, carol)).status).toBe(200);
    await aReport(app, newcomers[AUTO_HIDE - 1], 'post', post.id);
    expect((await readPost(post.id, carol)).status).toBe(404);
    expect(await caseOf(post.id)).toMatchObject({ id: second.id, reporters_count: 2 * AUTO_HIDE, content_state: 'hidden', auto_hidden_at: expect.stringMatching(/Z$/) });
  });

  test('when a case that was not auto-hidden is dismissed, then its reporters no longer count towards hiding that thing, and still count for other things', async () => {
    const { place, bob, carol, post } = await aStreet();
    const other = await aPost(app, bob);
    const brigade = await Promise.all(Array.from({ length: AUTO_HIDE }, () => aResidentOf(app, place)));
    await established(...brigade);
    await aReport(app, brigade[0], 'post', post.id);
    expect(await resolve((await caseOf(post.id)).id, { action: 'dismiss' })).toMatchObject({ status: 200 });

    for (const r of brigade) await aReport(app, r, 'post', post.id);
    expect((await readPost(post.id, carol)).status).toBe(200);
    for (const r of brigade) await aReport(app, r, 'post', other.id);
    expect((await readPost(other.id, carol)).status).toBe(404);
  });
});

describe('GET /api/admin/moderation-log/', () => {
  test('when staff act, then each action is in the log newest first with who, what, which report and thing, about whom, the note and when; REST and socket agree', async () => {
    const { bob, alice, post } = await aStreet();
    const other = await aResident(app);
    await aReport(app, alice, 'post', post.id);
    await aReport(app, alice, 'user', other.id);
    const postCase = await caseOf(post.id);
    const userCase = await caseOf(other.id);
    await resolve(postCase.id, { action: 'hide', note: 'Off topic' });
    await resolve(userCase.id, { action: 'dismiss' });

    const rest = await app.rest('GET', '/api/admin/moderation-log/', { token: staff.token, query: { page_size: 2 } });
    expect(rest.status).toBe(200);
    expectBodyFits(successSchema('/api/admin/moderation-log/'), rest.body, 'admin.moderation_log');
    const moderator = { id: staff.id, username: staff.username, display_name: expect.any(String), profile_picture: null };
    expect(rest.body.results).toEqual([
      { id: expect.any(String), action: 'dismiss', moderator, report_id: userCase.id, target_type: 'user', target_id: other.id, subject: summary(other), note: null, created_at: expect.stringMatching(/Z$/) },
      { id: expect.any(String), action: 'hide', moderator, report_id: postCase.id, target_type: 'post', target_id: post.id, subject: summary(bob), note: 'Off topic', created_at: expect.stringMatching(/Z$/) },
    ]);
    expect(rest.body.next).toContain('/api/admin/moderation-log/?page=2&page_size=2');
    expect(await app.emit('admin.moderation_log', { page_size: 2 }, { token: staff.token })).toEqual({ status: 200, body: rest.body });
  });
});
