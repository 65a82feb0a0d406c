import crypto from 'node:crypto';
import { nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aResident } from '../builders/locations.js';
import { aCrowd } from '../builders/crowd.js';
import { aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { sql } from '../helpers/sql.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});


describe('POST /api/feed/posts/{post_id}/like/', () => {
  test('when a neighbour likes and unlikes, then the answer carries the new state and count, and reads follow', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const bob = await aResidentOf(app, place);
    const liked = await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: bob.token });
    expect(liked).toMatchObject({ status: 200, body: { message: 'Post liked.', liked: true, likes_count: 1 } });
    const read = await app.rest('GET', `/api/feed/posts/${post.id}/`, { token: bob.token });
    expect(read.body).toMatchObject({ likes_count: 1, has_liked: true, has_bookmarked: false });
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/`)).body.has_liked).toBe(false);
    const unliked = await app.emit('posts.like', { post_id: post.id }, { token: bob.token });
    expect(unliked).toEqual({ status: 200, body: { message: 'Post unliked.', liked: false, likes_count: 0 } });
    // The compatibility path is the same toggle.
    const compat = await app.rest('POST', `/api/posts/${post.id}/like/`, { token: bob.token });
    expect(compat).toMatchObject({ status: 200, body: { message: 'Post liked.', liked: true, likes_count: 1 } });
  });

  test('when someone likes a post, then its author is notified once, live; unliking and liking again does not notify again', async () => {
    const place = await aNeighbourhood(app);
    const alice = place.founder;
    const post = await aPost(app, alice);
    const bob = await aResidentOf(app, place);
    const socket = await app.socket(alice.token);
    const pushed = nextEvent(socket, 'notification:created');
    await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: bob.token });
    expect(await pushed).toMatchObject({ notification_type: 'post_like', message: `${bob.username} liked your post`, target_type: 'Post', target_id: post.id, actor: { id: bob.id } });
    const quiet = noEvent(socket, 'notification:created', 700);
    await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: bob.token });
    await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: bob.token });
    await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: alice.token }); // one's own like notifies nobody
    await quiet;
    const list = await app.rest('GET', '/api/notifications/', { token: alice.token });
    expect(list.body.results.filter((n: { notification_type: string }) => n.notification_type === 'post_like')).toHaveLength(1);
  });

  test('when 100 users like one post at the same moment, then likes_count is exactly 100', async () => {
    const { founder } = await aNeighbourhood(app);
    const post = await aPost(app, founder);
    const likers = await aCrowd(100);
    const answers = await Promise.all(likers.map((u) => app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: u.token })));
    expect(answers.every((a) => a.status === 200 && a.body.liked === true)).toBe(true);
    const [row] = await sql('SELECT likes_count, (SELECT count(*)::int FROM post_likes WHERE post_id = $1) AS rows FROM posts WHERE id = $1', [post.id]);
    expect(row).toEqual({ likes_count: 100, rows: 100 });
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/`)).body.likes_count).toBe(100);
  }, 60_000);

  test("when one user's rapid double toggle arrives at once, then the state ends consistent with the count", async () => {
    const { founder } = await aNeighbourhood(app);
    const post = await aPost(app, founder);
    const bob = await aResident(app);
    for (let round = 0; round < 5; round++) {
      await Promise.all([0, 1, 2].map(() => app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: bob.token })));
      const [row] = await sql('SELECT likes_count, (SELECT count(*)::int FROM post_likes WHERE post_id = $1) AS rows FROM posts WHERE id = $1', [post.id]);
      expect(row.likes_count).toBe(row.rows);
      expect([0, 1]).toContain(row.rows);
    }
  });

  test('when the post does not exist or the id is malformed, then 404 or 400', async () => {
    const bob = await aResident(app);
    expect(await app.rest('POST', `/api/feed/posts/${crypto.randomUUID()}/like/`, { token: bob.token })).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    expect(await app.rest('POST', '/api/feed/posts/nope/like/', { token: bob.token })).toMatchObject({ status: 400, body: { post_id: ['Invalid UUID format.'] } });
    expect(await app.rest('POST', `/api/feed/posts/${crypto.randomUUID()}/like/`)).toMatchObject({ status: 401 });
  });
});

describe('bookmarks and the liked and bookmarked lists', () => {
  test('when a user bookmarks posts, then the toggle answers state and count, and the lists page newest first', async () => {
    const place = await aNeighbourhood(app);
    const first = await aPost(app, place.founder);
    const second = await aPost(app, place.founder);
    const bob = await aResidentOf(app, place);
    expect(await app.rest('POST', `/api/feed/posts/${first.id}/bookmark/`, { token: bob.token })).toMatchObject({ status: 200, body: { bookmarked: true, bookmarks_count: 1 } });
    await app.rest('POST', `/api/feed/posts/${second.id}/bookmark/`, { token: bob.token });
    await app.rest('POST', `/api/feed/posts/${second.id}/like/`, { token: bob.token });
    const bookmarked = await app.rest('GET', '/api/feed/posts/bookmarked/', { token: bob.token, query: { page_size: 1 } });
    expect(bookmarked.body).toMatchObject({ count: 2, previous: null, results: [{ id: second.id, has_bookmarked: true, has_liked: true }] });
    expect(bookmarked.body.next).toBe(`${app.url}/api/feed/posts/bookmarked/?page=2&page_size=1`);
    const page2 = await app.emit('posts.bookmarked', { page: 2, page_size: 1 }, { token: bob.token });
    expect(page2.body.results.map((p: { id: string }) => p.id)).toEqual([first.id]);
    const liked = await app.rest('GET', '/api/feed/posts/liked/', { token: bob.token });
    expect(liked.body).toMatchObject({ count: 1, results: [{ id: second.id, likes_count: 1 }] });
    expect(await app.emit('posts.liked', {}, { token: bob.token })).toEqual({ status: 200, body: liked.body });
    const unbookmark = await app.rest('POST', `/api/feed/posts/${first.id}/bookmark/`, { token: bob.token });
    expect(unbookmark.body).toEqual({ message: 'Bookmark removed.', bookmarked: false, bookmarks_count: 0 });
    expect((await app.rest('GET', '/api/feed/posts/bookmarked/', { token: bob.token, query: { page: 3 } })).status).toBe(404);
  });
});

describe('DELETE /api/feed/posts/{post_id}/', () => {
  test('when a stranger deletes, then 403; when the author deletes, then 204, it is gone, and the location count drops', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const bob = await aResidentOf(app, place);
    expect(await app.rest('DELETE', `/api/feed/posts/${post.id}/`, { token: bob.token })).toMatchObject({ status: 403 });
    // The shared test database holds many busier places than popular_locations' top 20: read the location's own count.
    const counted = async () => (await app.rest('GET', '/api/locations/locations/', { token: bob.token, query: { city: place.city } })).body.results[0].post_count;
    expect(await counted()).toBe(1);
    const del = await app.rest('DELETE', `/api/feed/posts/${post.id}/`, { token: place.founder.token });
    expect(del.status).toBe(204);
    expect(await app.rest('GET', `/api/feed/posts/${post.id}/`)).toMatchObject({ status: 404 });
    expect(await counted()).toBe(0);
    expect(await app.emit('posts.delete', { post_id: post.id }, { token: place.founder.token })).toEqual({ status: 404, body: { detail: 'Not found.' } });
  });
});
