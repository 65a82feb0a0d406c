import crypto from 'node:crypto';
import { nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aComment, aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { aCrowd } from '../builders/crowd.js';
import { sql } from '../helpers/sql.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

const COMMENT_FIELDS = ['id', 'user', 'post', 'content', 'parent', 'replies_count', 'likes_count', 'bookmarks_count', 'views_count', 'has_liked', 'has_bookmarked', 'created_at', 'updated_at', 'edited_at', 'tags'];
const counters = async (postId: string) => (await sql('SELECT comments_count FROM posts WHERE id = $1', [postId]))[0].comments_count;

describe('comments and replies', () => {
  test('when a neighbour comments and replies at depth, then lists, counters and both transports agree', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const bob = await aResidentOf(app, place);
    const res = await app.rest('POST', '/api/posts/comments/', { token: bob.token, body: { post: post.id, content: 'Nice!', parent: null } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...COMMENT_FIELDS].sort());
    expect(res.body).toMatchObject({ post: post.id, parent: null, content: 'Nice!', user: { username: bob.username }, replies_count: 0, likes_count: 0, has_liked: false });
    const reply = await aComment(app, place.founder, post.id, { parent: res.body.id });
    const deeper = await app.emit('comments.create', { post: post.id, content: 'Deeper', parent: reply.id }, { token: bob.token });
    expect(deeper).toMatchObject({ status: 201, body: { parent: reply.id } });

    const top = await app.rest('GET', `/api/posts/posts/${post.id}/comments/`);
    expect(top.body).toMatchObject({ count: 1, next: null, previous: null, results: [{ id: res.body.id, replies_count: 1 }] });
    expect(await app.emit('comments.list', { post_id: post.id })).toEqual({ status: 200, body: top.body });
    const replies = await app.rest('GET', '/api/posts/comments/replies/', { query: { parent_id: reply.id } });
    expect(replies.body).toMatchObject({ count: 1, results: [{ id: deeper.body.id, content: 'Deeper' }] });
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/`)).body.comments_count).toBe(3);
    // The compatibility path adds a top-level comment.
    const compat = await app.rest('POST', `/api/posts/${post.id}/comment/`, { token: bob.token, body: { content: 'Via compat' } });
    expect(compat).toMatchObject({ status: 201, body: { parent: null, content: 'Via compat', post: post.id } });
    expect(await counters(post.id)).toBe(4);
  });

  test('when comments are paged, then oldest first with absolute links; the parent_id filter is carried', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const root = await aComment(app, place.founder, post.id);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await aComment(app, place.founder, post.id, { parent: root.id }));
    const page = await app.rest('GET', '/api/posts/comments/replies/', { query: { parent_id: root.id, page_size: 2 } });
    expect(page.body.results.map((c: { id: string }) => c.id)).toEqual([made[0].id, made[1].id]);
    expect(page.body.next).toBe(`${app.url}/api/posts/comments/replies/?parent_id=${root.id}&page=2&page_size=2`);
    expect((await app.rest('GET', '/api/posts/comments/replies/', { query: { parent_id: root.id, page: 3, page_size: 2 } })).status).toBe(404);
  });

  test.each([
    ['a reply whose parent belongs to another post', 'parent', 'The parent comment belongs to another post.'],
    ['an unknown parent', 'parent', 'Comment not found.'],
    ['an unknown post', 'post', 'Post not found.'],
  ])('when the comment names %s, then 400 and nothing changes', async (name, field, message) => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const other = await aPost(app, place.founder);
    const foreign = await aComment(app, place.founder, other.id);
    const body =
      name === 'an unknown post' ? { post: crypto.randomUUID(), content: 'x' } : { post: post.id, content: 'x', parent: name === 'an unknown parent' ? crypto.randomUUID() : foreign.id };
    const res = await app.rest('POST', '/api/posts/comments/', { token: place.founder.token, body });
    expect(res).toMatchObject({ status: 400, body: { [field]: [message] } });
    expect(await counters(post.id)).toBe(0);
    expect(await counters(other.id)).toBe(1);
    expect((await sql('SELECT replies_count FROM comments WHERE id = $1', [foreign.id]))[0].replies_count).toBe(0);
  });

  test.each([
    [{ post: undefined, content: 'x' }, { post: ['This field is required.'] }],
    [{ post: 'nope', content: 'x' }, { post: ['Invalid UUID format.'] }],
    [{ content: 'x'.repeat(5001) }, { content: ['Ensure this field has no more than 5000 characters.'] }],
    [{ content: '  ' }, { content: ['This field may not be blank.'] }],
  ].map(([body, errors]) => [JSON.stringify(errors), body, errors] as const))('when the body is invalid, then 400 %s', async (_t, body, errors) => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const res = await app.rest('POST', '/api/posts/comments/', { token: place.founder.token, body: { post: post.id, ...body } });
    expect(res).toMatchObject({ status: 400, body: errors });
  });

  test('when a comment with replies is deleted by its author, then its thread goes and the counters follow; others get 403', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const bob = await aResidentOf(app, place);
    const keep = await aComment(app, bob, post.id);
    const root = await aComment(app, bob, post.id, { parent: keep.id });
    const child = await aComment(app, place.founder, post.id, { parent: root.id });
    await aComment(app, bob, post.id, { parent: child.id });
    expect(await counters(post.id)).toBe(4);
    expect(await app.rest('DELETE', `/api/posts/comments/${root.id}/`, { token: place.founder.token })).toMatchObject({ status: 403 });
    expect((await app.rest('DELETE', `/api/posts/comments/${root.id}/`, { token: bob.token })).status).toBe(204);
    expect(await counters(post.id)).toBe(1);
    expect((await sql('SELECT replies_count FROM comments WHERE id = $1', [keep.id]))[0].replies_count).toBe(0);
    expect(await app.emit('comments.delete', { comment_id: root.id }, { token: bob.token })).toEqual({ status: 404, body: { detail: 'Not found.' } });
  });

  test('when 30 users comment at once, then comments_count is exactly 30', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const crowd = await aCrowd(30);
    const answers = await Promise.all(crowd.map((u) => app.rest('POST', '/api/posts/comments/', { token: u.token, body: { post: post.id, content: 'hi' } })));
    expect(answers.filter((a) => a.status !== 201).map((a) => [a.status, a.body])).toEqual([]);
    expect(await counters(post.id)).toBe(30);
  }, 60_000);
});

describe('comment likes and bookmarks', () => {
  test('when comments are liked and bookmarked, then toggles answer state and count, and lists show has_liked for the caller', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const comment = await aComment(app, place.founder, post.id);
    const bob = await aResidentOf(app, place);
    expect(await app.rest('POST', `/api/posts/comments/${comment.id}/like/`, { token: bob.token })).toMatchObject({ status: 200, body: { liked: true, likes_count: 1 } });
    expect(await app.emit('comments.bookmark', { comment_id: comment.id }, { token: bob.token })).toEqual({ status: 200, body: { message: 'Comment bookmarked.', bookmarked: true, bookmarks_count: 1 } });
    const list = await app.rest('GET', `/api/posts/posts/${post.id}/comments/`, { token: bob.token });
    expect(list.body.results[0]).toMatchObject({ has_liked: true, has_bookmarked: true, likes_count: 1, bookmarks_count: 1 });
    expect((await app.rest('POST', `/api/posts/comments/${comment.id}/like/`, { token: bob.token })).body).toEqual({ message: 'Comment unliked.', liked: false, likes_count: 0 });
    expect(await app.rest('POST', `/api/posts/comments/${crypto.randomUUID()}/like/`, { token: bob.token })).toMatchObject({ status: 404 });
  });
});

describe('comment notifications and events', () => {
  test('when a reply arrives, then the parent author gets comment_reply, the post author post_reply, mentioned users a mention; never the replier', async () => {
    const place = await aNeighbourhood(app);
    const alice = place.founder;
    const post = await aPost(app, alice);
    const bob = await aResidentOf(app, place);
    const carol = await aResidentOf(app, place);
    const dave = await aResidentOf(app, place);
    const top = await aComment(app, bob, post.id);
    const bobSocket = await app.socket(bob.token);
    const aliceSocket = await app.socket(alice.token);
    const daveSocket = await app.socket(dave.token);
    const toBob = nextEvent(bobSocket, 'notification:created');
    const toAlice = nextEvent(aliceSocket, 'notification:created');
    const toDave = nextEvent(daveSocket, 'notification:created');
    const reply = await aComment(app, carol, post.id, { parent: top.id, content: `Agreed @${dave.username.toUpperCase()} and @${bob.username}.` });
    expect(await toBob).toMatchObject({ notification_type: 'comment_reply', message: `${carol.username} replied to your comment.`, target_type: 'Comment', target_id: reply.id });
    expect(await toAlice).toMatchObject({ notification_type: 'post_reply', target_type: 'Post', target_id: post.id });
    expect(await toDave).toMatchObject({ notification_type: 'mention', message: `${carol.username} mentioned you in a comment.`, target_type: 'Comment', target_id: reply.id });
    // Bob was mentioned too, but already told of this reply: one notification.
    const bobs = await app.rest('GET', '/api/notifications/', { token: bob.token });
    expect(bobs.body.results.filter((n: { target_id: string }) => n.target_id === reply.id)).toHaveLength(1);
    const carols = await app.rest('GET', '/api/notifications/', { token: carol.token });
    expect(carols.body.count).toBe(0);
  });

  test('when someone replies to their own comment on their own post, then nobody is notified', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const top = await aComment(app, place.founder, post.id);
    const socket = await app.socket(place.founder.token);
    const quiet = noEvent(socket, 'notification:created', 600);
    await aComment(app, place.founder, post.id, { parent: top.id });
    await quiet;
    expect((await app.rest('GET', '/api/notifications/', { token: place.founder.token })).body.count).toBe(0);
  });

  test('when a comment is created, then a socket in the post room receives comment:created as an anonymous viewer sees it', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const watcher = await app.socket();
    await watcher.timeout(5000).emitWithAck('subscribe', { channel: 'post', id: post.id });
    const pushed = nextEvent(watcher, 'comment:created');
    const comment = await aComment(app, place.founder, post.id);
    expect(await pushed).toEqual({ ...comment, has_liked: false, has_bookmarked: false });
  });
});
