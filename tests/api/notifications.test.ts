import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { aNotification } from '../builders/notifications.js';
import { JPEG_1X1 } from '../helpers/images.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const NOTIFICATION_FIELDS = ['id', 'user', 'actor', 'actor_username', 'notification_type', 'target_id', 'target_type', 'message', 'is_read', 'created_at'];
/** Strip the value that legitimately differs between two calls that each write. */
const withoutUpdatedAt = ({ updated_at: _ignored, ...rest }: Record<string, unknown>) => rest;

describe('GET /api/notifications/', () => {
  test('when no token is sent, then 401', async () => {
    const res = await app.rest('GET', '/api/notifications/');
    expect(res).toMatchObject({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
  });

  test("when a user has notifications, then only its own come back, newest first, in the contract's shape", async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    await app.http().patch('/api/users/profile/').set('Authorization', `Bearer ${bob.token}`).attach('profile_picture', JPEG_1X1, 'bob.jpg');
    const postId = crypto.randomUUID();
    const oldest = await aNotification(app, alice.id, { message: 'Welcome!' });
    const middle = await aNotification(app, alice.id, { actorId: bob.id, type: 'post_like', targetType: 'Post', targetId: postId, message: `${bob.username} liked your post` });
    const newest = await aNotification(app, alice.id, { actorId: bob.id, type: 'comment_reply', targetType: 'Comment', targetId: crypto.randomUUID(), message: `${bob.username} replied to your comment.` });
    await aNotification(app, bob.id, { message: 'not for alice' });

    const res = await app.rest('GET', '/api/notifications/', { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 3, next: null, previous: null });
    expect(res.body.results.map((n: { id: string }) => n.id)).toEqual([newest.id, middle.id, oldest.id]);
    const like = res.body.results[1];
    expect(Object.keys(like)).toEqual(expect.arrayContaining(NOTIFICATION_FIELDS));
    expect(like).toMatchObject({
      user: alice.id,
      actor: { id: bob.id, username: bob.username, display_name: bob.body.display_name, profile_picture: expect.stringMatching(/^http:\/\/.+profile_pictures\/.+\.jpg$/) },
      actor_username: bob.username,
      notification_type: 'post_like',
      target_type: 'Post',
      target_id: postId,
      message: `${bob.username} liked your post`,
      is_read: false,
    });
    expect(like.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.body.results[2]).toMatchObject({ actor: null, target_id: null, target_type: null, notification_type: 'general' });
  });

  test('when there are more notifications than a page, then pages are newest first with absolute links, and a page past the end is 404', async () => {
    const alice = await aUser(app);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await aNotification(app, alice.id, { message: `number ${i}` }));
    const newestFirst = made.reverse().map((n) => n.id);
    const first = await app.rest('GET', '/api/notifications/', { token: alice.token, query: { page_size: 2 } });
    expect(first.body).toMatchObject({ count: 5, previous: null });
    expect(first.body.results.map((n: { id: string }) => n.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.next).toBe(`${app.url}/api/notifications/?page=2&page_size=2`);
    const third = await app.rest('GET', '/api/notifications/', { token: alice.token, query: { page: 3, page_size: 2 } });
    expect(third.body.results.map((n: { id: string }) => n.id)).toEqual(newestFirst.slice(4));
    expect(third.body).toMatchObject({ next: null, previous: `${app.url}/api/notifications/?page=2&page_size=2` });
    const past = await app.rest('GET', '/api/notifications/', { token: alice.token, query: { page: 4, page_size: 2 } });
    expect(past).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
  });

  test('when the list is asked over REST and the socket, then status and body are identical', async () => {
    const alice = await aUser(app);
    await aNotification(app, alice.id);
    await aNotification(app, alice.id);
    const rest = await app.rest('GET', '/api/notifications/', { token: alice.token, query: { page: 2, page_size: 1 } });
    const socket = await app.emit('notifications.list', { page: 2, page_size: 1 }, { token: alice.token });
    expect(rest.status).toBe(200);
    expect(socket).toEqual({ status: rest.status, body: rest.body });
  });
});

describe('PATCH /api/notifications/{notification_id}/', () => {
  test('when the recipient marks a notification read, then it is read in the answer and in the list', async () => {
    const alice = await aUser(app);
    const n = await aNotification(app, alice.id);
    const res = await app.rest('PATCH', `/api/notifications/${n.id}/`, { token: alice.token, body: { is_read: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: n.id, user: alice.id, is_read: true, created_at: n.created_at });
    const list = await app.rest('GET', '/api/notifications/', { token: alice.token });
    expect(list.body.results[0]).toMatchObject({ id: n.id, is_read: true });
    const unread = await app.rest('PATCH', `/api/notifications/${n.id}/`, { token: alice.token, body: { is_read: false } });
    expect(unread.body.is_read).toBe(false);
  });

  test("when another user patches someone's notification, then 404 (not 403) and it stays unread", async () => {
    const alice = await aUser(app);
    const mallory = await aUser(app);
    const n = await aNotification(app, alice.id);
    const res = await app.rest('PATCH', `/api/notifications/${n.id}/`, { token: mallory.token, body: { is_read: true } });
    expect(res).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    const list = await app.rest('GET', '/api/notifications/', { token: alice.token });
    expect(list.body.results[0]).toMatchObject({ id: n.id, is_read: false });
  });

  test('when the id is not a UUID, then 400 {notification_id: [Invalid UUID format.]}', async () => {
    const alice = await aUser(app);
    const res = await app.rest('PATCH', '/api/notifications/not-a-uuid/', { token: alice.token, body: { is_read: true } });
    expect(res).toEqual(expect.objectContaining({ status: 400, body: { notification_id: ['Invalid UUID format.'] } }));
  });

  test('when is_read is missing, then 400 on that field', async () => {
    const alice = await aUser(app);
    const n = await aNotification(app, alice.id);
    const res = await app.rest('PATCH', `/api/notifications/${n.id}/`, { token: alice.token, body: {} });
    expect(res).toEqual(expect.objectContaining({ status: 400, body: { is_read: ['This field is required.'] } }));
  });

  test('when the same update runs over REST and the socket, then status and body are identical (apart from updated_at)', async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const n = await aNotification(app, alice.id);
    const rest = await app.rest('PATCH', `/api/notifications/${n.id}/`, { token: alice.token, body: { is_read: true } });
    const socket = await app.emit('notifications.update', { notification_id: n.id, is_read: true }, { token: alice.token });
    expect(rest.status).toBe(200);
    expect(socket.status).toBe(rest.status);
    expect(withoutUpdatedAt(socket.body)).toEqual(withoutUpdatedAt(rest.body));
    // The failures too: someone else's notification is 404 (not 403), a malformed id a field error.
    for (const [input, token, expected] of [
      [{ notification_id: n.id, is_read: true }, bob.token, { status: 404, body: { detail: 'Not found.' } }],
      [{ notification_id: 'nope', is_read: true }, alice.token, { status: 400, body: { notification_id: ['Invalid UUID format.'] } }],
    ] as const) {
      const { notification_id, ...body } = input;
      const viaRest = await app.rest('PATCH', `/api/notifications/${notification_id}/`, { token, body });
      const viaSocket = await app.emit('notifications.update', input, { token });
      expect({ status: viaRest.status, body: viaRest.body }).toEqual(expected);
      expect(viaSocket).toEqual(expected);
    }
  });
});
