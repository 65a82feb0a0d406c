import crypto from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { aCrowd } from '../builders/crowd.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

const subscribe = (s: Socket, channel: string, id: string) => s.timeout(5000).emitWithAck('subscribe', { channel, id });

/** Every `event` a socket receives from now on. */
function collect<T = any>(socket: Socket, event: string): T[] {
  const seen: T[] = [];
  socket.on(event, (payload: T) => seen.push(payload));
  return seen;
}

describe('post:created', () => {
  test("when a resident posts over REST, then a neighbour's socket and a display subscribed to the location see it within a second", async () => {
    const place = await aNeighbourhood(app);
    const neighbour = await aResidentOf(app, place);
    const neighbourSocket = await app.socket(neighbour.token);
    const display = await app.socket();
    expect(await subscribe(display, 'location', place.locationId)).toMatchObject({ status: 200 });
    const outsider = await app.socket((await aResidentOf(app)).token);
    const toNeighbour = nextEvent(neighbourSocket, 'post:created', 1000);
    const toDisplay = nextEvent(display, 'post:created', 1000);
    const notToOutsider = noEvent(outsider, 'post:created', 1000);
    const started = Date.now();
    const post = await aPost(app, place.founder, { content: 'Street party on Saturday' });
    const seen = await toNeighbour;
    expect(Date.now() - started).toBeLessThan(1000);
    // The author's own view and the pushed (anonymous) view are the same here: nobody liked it yet.
    expect(seen).toEqual(post);
    expect(await toDisplay).toEqual(post);
    await notToOutsider;
  });
});

describe('the post channel', () => {
  test('when a socket subscribes to an unknown post, then 404; a malformed id is 400', async () => {
    const s = await app.socket();
    expect(await subscribe(s, 'post', crypto.randomUUID())).toEqual({ status: 404, body: { detail: 'Not found.' } });
    expect(await subscribe(s, 'post', 'nope')).toEqual({ status: 400, body: { id: ['Invalid UUID format.'] } });
  });

  test('when likes arrive in a burst, then post:stats comes at most once a second, and the last one carries the final counts', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const watcher = await app.socket();
    await subscribe(watcher, 'post', post.id);
    const arrivals: number[] = [];
    const stats = collect(watcher, 'post:stats');
    watcher.on('post:stats', () => arrivals.push(Date.now()));
    const crowd = await aCrowd(8);
    const first = nextEvent(watcher, 'post:stats');
    await Promise.all(crowd.map((u) => app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: u.token })));
    await first;
    // Wait out the window that is open now, and its trailing push.
    await new Promise((resolve) => setTimeout(resolve, 2200));
    // However slow the machine made the burst, two pushes are a second apart (less the timers' jitter).
    const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]);
    expect(gaps.every((g) => g >= 900)).toBe(true);
    expect(stats.length).toBeLessThan(8);
    expect(stats[stats.length - 1]).toEqual({ post_id: post.id, likes_count: 8, comments_count: 0, views_count: 0 });
    // A quiet post's next change is pushed at once again.
    const next = nextEvent(watcher, 'post:stats', 800);
    await app.rest('POST', `/api/feed/posts/${post.id}/track_view/`, { token: place.founder.token });
    expect(await next).toEqual({ post_id: post.id, likes_count: 8, comments_count: 0, views_count: 1 });
  });

  test('when the author deletes a post, then post:deleted reaches the post room and the location', async () => {
    const place = await aNeighbourhood(app);
    const post = await aPost(app, place.founder);
    const watcher = await app.socket();
    await subscribe(watcher, 'post', post.id);
    const neighbour = await app.socket((await aResidentOf(app, place)).token);
    const inRoom = nextEvent(watcher, 'post:deleted');
    const inLocation = nextEvent(neighbour, 'post:deleted');
    expect((await app.rest('DELETE', `/api/feed/posts/${post.id}/`, { token: place.founder.token })).status).toBe(204);
    expect(await inRoom).toEqual({ id: post.id });
    expect(await inLocation).toEqual({ id: post.id });
  });
});

describe('mentions in posts', () => {
  test('when a post mentions users, then each is notified once (any case, trailing dot), never the author or unknown names', async () => {
    const place = await aNeighbourhood(app);
    const bob = await aResidentOf(app, place);
    const socket = await app.socket(bob.token);
    const pushed = nextEvent(socket, 'notification:created');
    const post = await aPost(app, place.founder, { content: `Thanks @${bob.username.toUpperCase()}. And @${bob.username} again, @${place.founder.username} and @nobody${crypto.randomUUID().slice(0, 8)}` });
    expect(await pushed).toMatchObject({ notification_type: 'mention', target_type: 'Post', target_id: post.id, message: `${place.founder.username} mentioned you in a post.` });
    expect((await app.rest('GET', '/api/notifications/', { token: bob.token })).body.count).toBe(1);
    expect((await app.rest('GET', '/api/notifications/', { token: place.founder.token })).body.count).toBe(0);
  });
});
