import crypto from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { nextEvent, noEvent, startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import type { TestUser } from '../builders/users.js';
import { aComment, aNeighbourhood, aPoll, aPost, aResidentOf } from '../builders/posts.js';
import { aBlock, aMute, aReport } from '../builders/safety.js';
import { JPEG_1X1, PNG_1X1 } from '../helpers/images.js';

/**
 * Edits with history and describing posts (DESIGN.md section 13, issue 38): PATCH of posts and comments by their
 * author, `edited_at`, the history reads, `post:updated` / `comment:updated`, realtime.sync, mentions added by an
 * edit, a report's snapshot, alt texts and content warnings; over both transports.
 */
const ADMIN = { email: `${unique('mod')}@example.test`, password: 'moderator-password-' + unique() };
let app: TestApp;
let staffToken: string;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off', ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  const login = await app.rest('POST', '/api/auth/login/', { body: { username: ADMIN.email, password: ADMIN.password } });
  if (login.status !== 200) throw new Error(`admin login answered ${login.status}`);
  staffToken = login.body.access_token;
});
afterAll(async () => {
  await app.stop();
});

const subscribe = (s: Socket, channel: string, id: string) => s.timeout(5000).emitWithAck('subscribe', { channel, id });
const editPost = (user: TestUser | null, postId: string, body: Record<string, unknown>) =>
  app.rest('PATCH', `/api/feed/posts/${postId}/`, { token: user?.token, body });
const editComment = (user: TestUser | null, commentId: string, body: Record<string, unknown>) =>
  app.rest('PATCH', `/api/posts/comments/${commentId}/`, { token: user?.token, body });
/** An answer with what differs between twin objects (ids, times) set aside. */
const shape = (body: any): any =>
  JSON.parse(JSON.stringify(body, (k, v) => (['id', 'post', 'created_at', 'updated_at', 'edited_at', 'next', 'previous'].includes(k) && v !== null ? '<set aside>' : v)));

/** The moderation queue's open entry for a thing (the queue may hold other files' cases: read it all). */
async function openCaseOf(targetId: string): Promise<any> {
  for (let page = 1; ; page++) {
    const res = await app.rest('GET', '/api/admin/reports/', { token: staffToken, query: { page, page_size: 100 } });
    const found = res.body.results.find((c: any) => c.target_id === targetId);
    if (found || !res.body.next) return found;
  }
}

async function mentionsOf(user: TestUser, targetId: string): Promise<number> {
  const res = await app.rest('GET', '/api/notifications/', { token: user.token, query: { page_size: 100 } });
  return res.body.results.filter((n: any) => n.notification_type === 'mention' && JSON.stringify(n).includes(targetId)).length;
}

describe('PATCH /api/feed/posts/{post_id}/', () => {
  test('when the author edits a post over REST and over the socket, then the same answer with edited_at set, and the history lists the earlier versions newest first', async () => {
    const { founder } = await aNeighbourhood(app);
    const [restPost, socketPost] = [await aPost(app, founder, { title: 'Lost cat', content: 'Grey cat, answers to Tom' }), await aPost(app, founder, { title: 'Lost cat', content: 'Grey cat, answers to Tom' })];
    expect(restPost.edited_at).toBeNull();
    expect(restPost.content_warning).toBeNull();

    const rest = await editPost(founder, restPost.id, { content: 'Grey cat, answers to Tim' });
    const socket = await app.emit('posts.edit', { post_id: socketPost.id, content: 'Grey cat, answers to Tim' }, { token: founder.token });
    expect(rest.status).toBe(200);
    expect(shape(socket)).toEqual(shape({ status: rest.status, body: rest.body }));
    expect(rest.body).toMatchObject({ id: restPost.id, title: 'Lost cat', content: 'Grey cat, answers to Tim', edited_at: expect.any(String), created_at: restPost.created_at });
    expect(Date.parse(rest.body.updated_at)).toBeGreaterThan(Date.parse(restPost.updated_at));

    const second = await editPost(founder, restPost.id, { title: null, content_warning: 'Sad news' });
    expect(second.body).toMatchObject({ title: null, content: 'Grey cat, answers to Tim', content_warning: 'Sad news' });
    expect((await app.rest('GET', `/api/feed/posts/${restPost.id}/`)).body).toEqual({ ...second.body, has_liked: false });

    const history = await app.rest('GET', `/api/feed/posts/${restPost.id}/history/`);
    expect(history.status).toBe(200);
    expect(history.body.count).toBe(2);
    expect(history.body.results).toEqual([
      { content: 'Grey cat, answers to Tim', title: 'Lost cat', content_warning: null, edited_at: rest.body.edited_at },
      { content: 'Grey cat, answers to Tom', title: 'Lost cat', content_warning: null, edited_at: null },
    ]);
    expect(await app.emit('posts.history', { post_id: restPost.id })).toEqual({ status: 200, body: history.body });
    // An edit that changes nothing writes no version.
    expect((await editPost(founder, restPost.id, { content: 'Grey cat, answers to Tim' })).body.edited_at).toBe(second.body.edited_at);
    expect((await app.rest('GET', `/api/feed/posts/${restPost.id}/history/`)).body.count).toBe(2);
  });

  test('when someone else edits, then 403; an unreadable post (blocked, unknown) is 404; anonymous is 401; bad fields are 400; over both transports, and nothing changes', async () => {
    const place = await aNeighbourhood(app);
    const neighbour = await aResidentOf(app, place);
    const blocked = await aResidentOf(app, place);
    const post = await aPost(app, place.founder, { content: 'Street party on Friday' });
    await aBlock(app, place.founder, blocked);
    const cases: Array<[TestUser | null, string, Record<string, unknown>, number, unknown]> = [
      [neighbour, post.id, { content: 'mine now' }, 403, { detail: 'You do not have permission to perform this action.' }],
      [blocked, post.id, { content: 'mine now' }, 404, { detail: 'Not found.' }],
      [place.founder, crypto.randomUUID(), { content: 'x' }, 404, { detail: 'Not found.' }],
      [null, post.id, { content: 'x' }, 401, expect.objectContaining({ detail: expect.any(String) })],
      [place.founder, post.id, { content: '   ' }, 400, { content: ['This field may not be blank.'] }],
      [place.founder, post.id, {}, 400, { non_field_errors: ['Send at least one of content, title, content_warning, media_alt_texts.'] }],
      [place.founder, post.id, { post_type: 'poll' }, 400, { post_type: ["A post's type cannot change."], non_field_errors: ['Send at least one of content, title, content_warning, media_alt_texts.'] }],
      [place.founder, post.id, { content_warning: 'w'.repeat(201) }, 400, { content_warning: ['Ensure this field has no more than 200 characters.'] }],
      [place.founder, post.id, { media_alt_texts: ['a cat'] }, 400, { media_alt_texts: ['This post has no images.'] }],
    ];
    for (const [user, postId, body, status, answer] of cases) {
      const rest = await editPost(user, postId, body);
      expect({ body, status: rest.status, answer: rest.body }).toEqual({ body, status, answer });
      const socket = await app.emit('posts.edit', { post_id: postId, ...body }, { token: user?.token });
      expect({ sent: body, ...socket }).toEqual({ sent: body, status: rest.status, body: rest.body });
    }
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/`)).body).toMatchObject({ content: 'Street party on Friday', edited_at: null });
    // History reads follow the read rule: the blocked neighbour cannot read it, an unknown post is 404.
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/history/`, { token: blocked.token })).status).toBe(404);
    expect((await app.emit('posts.history', { post_id: crypto.randomUUID() })).status).toBe(404);
  });

  test("when a poll post is edited, then its text changes but its options and question never do", async () => {
    const place = await aNeighbourhood(app);
    const poll = await aPoll(app, place.founder, { content: 'Vote by Sunday' });
    const refused = await editPost(place.founder, poll.id, { content: 'Vote by Monday', poll_options: ['Beach', 'Hills'] });
    expect(refused).toMatchObject({ status: 400, body: { poll_options: ["A poll's question and options cannot change."] } });
    const edited = await editPost(place.founder, poll.id, { content: 'Vote by Monday' });
    expect(edited.status).toBe(200);
    expect(edited.body.content).toBe('Vote by Monday');
    expect(edited.body.poll_data).toEqual(poll.poll_data);
    expect(edited.body.post_type).toBe('poll');
  });

  test('when a post is edited, then post:updated reaches the sockets that heard post:created and the post room, never one that hides its author; realtime.sync returns it again', async () => {
    const place = await aNeighbourhood(app);
    const neighbour = await aResidentOf(app, place);
    const muter = await aResidentOf(app, place);
    await aMute(app, muter, place.founder);
    const post = await aPost(app, place.founder, { content: 'Water off at noon' });
    const since = new Date().toISOString();
    const neighbourSocket = await app.socket(neighbour.token);
    const muterSocket = await app.socket(muter.token);
    const watcher = await app.socket();
    expect(await subscribe(watcher, 'post', post.id)).toMatchObject({ status: 200 });
    const heard = nextEvent(neighbourSocket, 'post:updated');
    const watched = nextEvent(watcher, 'post:updated');
    const muted = noEvent(muterSocket, 'post:updated', 1000);
    const edited = await editPost(place.founder, post.id, { content: 'Water off at two' });
    const pushed = await heard;
    expect(pushed).toEqual({ ...edited.body, has_liked: false, has_bookmarked: false });
    expect(await watched).toEqual(pushed);
    await muted;

    const sync = await app.rest('GET', '/api/realtime/sync/', { token: neighbour.token, query: { since } });
    expect(sync.status).toBe(200);
    expect(sync.body.posts).toEqual([pushed]);
    const overSocket = await neighbourSocket.timeout(10000).emitWithAck('realtime.sync', { since });
    // The cursors differ: each stays a few seconds behind its own call's clock.
    expect(overSocket).toEqual({ status: 200, body: { ...sync.body, cursor: expect.any(String) } });
  });

  test('when an edit adds a mention, then only the newly mentioned are notified, once; a name mentioned before is not told again', async () => {
    const place = await aNeighbourhood(app);
    const [bob, carol] = [await aResidentOf(app, place), await aResidentOf(app, place)];
    const post = await aPost(app, place.founder, { content: `Thanks @${bob.username}` });
    expect(await mentionsOf(bob, post.id)).toBe(1);
    await editPost(place.founder, post.id, { content: `Thanks @${bob.username} and @${carol.username}` });
    expect([await mentionsOf(bob, post.id), await mentionsOf(carol, post.id)]).toEqual([1, 1]);
    await editPost(place.founder, post.id, { content: 'Thanks all' });
    await editPost(place.founder, post.id, { content: `Thanks @${carol.username}!` });
    expect([await mentionsOf(bob, post.id), await mentionsOf(carol, post.id)]).toEqual([1, 1]);
  });

  test('when a reported post is edited, then the report keeps the version reported, and staff read the current one beside it', async () => {
    const place = await aNeighbourhood(app);
    const reporter = await aResidentOf(app, place);
    const post = await aPost(app, place.founder, { content: 'Buy cheap pills here' });
    await aReport(app, reporter, 'post', post.id);
    await editPost(place.founder, post.id, { content: 'A harmless note' });
    const reported = await openCaseOf(post.id);
    expect(reported.snapshot).toMatchObject({ content: 'Buy cheap pills here', edited_at: null });
    const current = await app.rest('GET', `/api/feed/posts/${post.id}/`, { token: staffToken });
    expect(current.body).toMatchObject({ content: 'A harmless note', edited_at: expect.any(String) });
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/history/`, { token: staffToken })).body.results[0].content).toBe('Buy cheap pills here');
  });
});

describe('PATCH /api/posts/comments/{comment_id}/', () => {
  test('when the author edits a comment over REST and the socket, then the same answer with edited_at, comment:updated reaches the post room (not a muter), and the history lists the earlier version', async () => {
    const place = await aNeighbourhood(app);
    const bob = await aResidentOf(app, place);
    const muter = await aResidentOf(app, place);
    await aMute(app, muter, bob);
    const post = await aPost(app, place.founder);
    const [restComment, socketComment] = [await aComment(app, bob, post.id, { content: 'See you at 5' }), await aComment(app, bob, post.id, { content: 'See you at 5' })];
    expect(restComment.edited_at).toBeNull();
    const watcher = await app.socket();
    const muterSocket = await app.socket(muter.token);
    expect(await subscribe(watcher, 'post', post.id)).toMatchObject({ status: 200 });
    expect(await subscribe(muterSocket, 'post', post.id)).toMatchObject({ status: 200 });
    const heard = nextEvent(watcher, 'comment:updated');
    const muted = noEvent(muterSocket, 'comment:updated', 1000);

    const rest = await editComment(bob, restComment.id, { content: 'See you at 6' });
    expect(rest).toMatchObject({ status: 200, body: { id: restComment.id, content: 'See you at 6', edited_at: expect.any(String) } });
    expect(await heard).toEqual({ ...rest.body, has_liked: false, has_bookmarked: false });
    await muted;
    const socket = await app.emit('comments.edit', { comment_id: socketComment.id, content: 'See you at 6' }, { token: bob.token });
    expect(shape(socket)).toEqual(shape({ status: rest.status, body: rest.body }));

    const history = await app.rest('GET', `/api/posts/comments/${restComment.id}/history/`);
    expect(history.body).toMatchObject({ count: 1, results: [{ content: 'See you at 5', edited_at: null }] });
    expect(await app.emit('comments.history', { comment_id: restComment.id })).toEqual({ status: 200, body: history.body });
  });

  test('when someone else edits a comment, then 403; a blocked reader 404; blank 400; a newly mentioned neighbour is told once', async () => {
    const place = await aNeighbourhood(app);
    const [bob, carol, blocked] = [await aResidentOf(app, place), await aResidentOf(app, place), await aResidentOf(app, place)];
    const post = await aPost(app, place.founder);
    const comment = await aComment(app, bob, post.id, { content: 'Nice' });
    await aBlock(app, bob, blocked);
    const cases: Array<[TestUser, Record<string, unknown>, number, unknown]> = [
      [carol, { content: 'mine' }, 403, { detail: 'You do not have permission to perform this action.' }],
      [blocked, { content: 'mine' }, 404, { detail: 'Not found.' }],
      [bob, { content: ' ' }, 400, { content: ['This field may not be blank.'] }],
    ];
    for (const [user, body, status, answer] of cases) {
      const rest = await editComment(user, comment.id, body);
      expect({ status: rest.status, body: rest.body }).toEqual({ status, body: answer });
      expect(await app.emit('comments.edit', { comment_id: comment.id, ...body }, { token: user.token })).toEqual({ status, body: answer });
    }
    await editComment(bob, comment.id, { content: `Nice, @${carol.username}` });
    await editComment(bob, comment.id, { content: `Very nice, @${carol.username}` });
    expect(await mentionsOf(carol, comment.id)).toBe(1);
  });
});

describe('alt text and content warnings', () => {
  test('when an image post is created as multipart with alt texts as repeated fields, or as one JSON list, then each image carries its alt text in order; the PATCH changes them', async () => {
    const { founder } = await aNeighbourhood(app);
    const repeated = await app
      .http()
      .post('/api/feed/posts/')
      .set('Authorization', `Bearer ${founder.token}`)
      .field('post_type', 'image')
      .field('content_warning', 'Spiders')
      .field('media_alt_texts', 'A spider on a web')
      .field('media_alt_texts', 'The same spider, closer')
      .attach('media', PNG_1X1, 'a.png')
      .attach('media', JPEG_1X1, 'b.jpg');
    expect(repeated.status).toBe(201);
    expect(repeated.body.content_warning).toBe('Spiders');
    expect(repeated.body.media.map((m: any) => m.alt_text)).toEqual(['A spider on a web', 'The same spider, closer']);
    const json = await app
      .http()
      .post('/api/feed/posts/')
      .set('Authorization', `Bearer ${founder.token}`)
      .field('post_type', 'image')
      .field('media_alt_texts', JSON.stringify(['Only the first']))
      .attach('media', PNG_1X1, 'a.png')
      .attach('media', JPEG_1X1, 'b.jpg');
    expect(json.body.media.map((m: any) => m.alt_text)).toEqual(['Only the first', null]);

    const edited = await editPost(founder, json.body.id, { media_alt_texts: ['A red door', 'A blue door'] });
    expect(edited.status).toBe(200);
    expect(edited.body.media.map((m: any) => m.alt_text)).toEqual(['A red door', 'A blue door']);
    // Describing the images is not a new version of what was said.
    expect(edited.body.edited_at).toBeNull();
    const overSocket = await app.emit('posts.edit', { post_id: json.body.id, media_alt_texts: [null, 'A green door'] }, { token: founder.token });
    expect(overSocket.body.media.map((m: any) => m.alt_text)).toEqual([null, 'A green door']);
    expect((await editPost(founder, json.body.id, { media_alt_texts: ['one'] })).body).toEqual({ media_alt_texts: ['Send one alt text per image, in order (2 images).'] });
  });

  test('when alt texts or a warning are too long, or more alt texts than images come, then 400 on that field and no post, over both transports', async () => {
    const { founder } = await aNeighbourhood(app);
    const tooMany = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'image').field('media_alt_texts', 'a').field('media_alt_texts', 'b').attach('media', PNG_1X1, 'a.png');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ media_alt_texts: ['Send at most one alt text per image (1 attached).'] });
    const tooLong = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'image').field('media_alt_texts', 'x'.repeat(1501)).attach('media', PNG_1X1, 'a.png');
    expect(tooLong.body).toEqual({ 'media_alt_texts.0': ['Ensure each alt text has no more than 1500 characters.'] });
    const warning = { post_type: 'text', content: 'Storm damage', content_warning: 'w'.repeat(201) };
    const rest = await app.rest('POST', '/api/feed/posts/', { token: founder.token, body: warning });
    expect(rest).toMatchObject({ status: 400, body: { content_warning: ['Ensure this field has no more than 200 characters.'] } });
    expect(await app.emit('posts.create', warning, { token: founder.token })).toEqual({ status: 400, body: rest.body });
    const ok = { post_type: 'text', content: 'Storm damage on Elm Street', content_warning: 'Injured animal' };
    const [restOk, socketOk] = [await app.rest('POST', '/api/feed/posts/', { token: founder.token, body: ok }), await app.emit('posts.create', ok, { token: founder.token })];
    expect(shape(socketOk)).toEqual(shape({ status: restOk.status, body: restOk.body }));
    expect(restOk.body.content_warning).toBe('Injured animal');
  });
});

describe('export', () => {
  test("when an author edited a post and a comment, then the account's export holds the earlier versions as theirs", async () => {
    const { founder } = await aNeighbourhood(app);
    const post = await aPost(app, founder, { content: 'First words' });
    const comment = await aComment(app, founder, post.id, { content: 'First reply' });
    await editPost(founder, post.id, { content: 'Second words' });
    await editComment(founder, comment.id, { content: 'Second reply' });
    const exported = await app.rest('GET', '/api/users/profile/export/', { token: founder.token });
    expect(exported.status).toBe(200);
    expect(exported.body.post_versions).toEqual([{ post: post.id, content: 'First words', title: null, content_warning: null, edited_at: null, replaced_at: expect.any(String) }]);
    expect(exported.body.comment_versions).toEqual([{ comment: comment.id, content: 'First reply', edited_at: null, replaced_at: expect.any(String) }]);
    expect(exported.body.comments[0]).toMatchObject({ id: comment.id, content: 'Second reply', edited_at: expect.any(String) });
  });
});
