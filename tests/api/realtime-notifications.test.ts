import { eq } from 'drizzle-orm';
import { nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { aNotification } from '../builders/notifications.js';
import { transaction } from '../../src/platform/db.js';
import { platform } from '../../src/platform/index.js';
import { notifications } from '../../src/models/index.js';
import { notify } from '../../src/modules/notifications/notifications.service.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

describe('notification:created', () => {
  test("when a notification is created, then every socket of the recipient gets it and other users' sockets do not", async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const phone = await app.socket(alice.token);
    const laptop = await app.socket(alice.token);
    const bobsPhone = await app.socket(bob.token);
    const onPhone = nextEvent(phone, 'notification:created');
    const onLaptop = nextEvent(laptop, 'notification:created');
    const notBob = noEvent(bobsPhone, 'notification:created', 800);

    const created = await aNotification(app, alice.id, { actorId: bob.id, type: 'post_like', message: `${bob.username} liked your post` });

    expect(await onPhone).toEqual(created);
    expect(await onLaptop).toEqual(created);
    await notBob;
    // The pushed payload is the same object the list serves.
    const list = await app.rest('GET', '/api/notifications/', { token: alice.token });
    expect(list.body.results[0]).toEqual(created);
  });

  test('when the transaction that notified rolls back, then nothing is pushed and nothing is stored', async () => {
    const alice = await aUser(app);
    const phone = await app.socket(alice.token);
    const nothing = noEvent(phone, 'notification:created', 1000);
    let createdId: string | undefined;
    await expect(
      transaction(platform.db, async (tx, events) => {
        const body = await notify(tx, events, { recipientId: alice.id, type: 'general', message: 'never committed' }, { baseUrl: app.url });
        createdId = body?.id;
        throw new Error('the write that caused it failed');
      }),
    ).rejects.toThrow('the write that caused it failed');
    await nothing;
    expect(createdId).toBeDefined();
    expect(await platform.db.select().from(notifications).where(eq(notifications.id, createdId!))).toEqual([]);
  });

  test('when a notification is pushed, then it arrives only after its transaction committed', async () => {
    const alice = await aUser(app);
    const phone = await app.socket(alice.token);
    let committed = false;
    const pushed = nextEvent(phone, 'notification:created').then((n) => ({ n, committedBeforePush: committed }));
    await transaction(platform.db, async (tx, events) => {
      await notify(tx, events, { recipientId: alice.id, type: 'general', message: 'after commit' }, { baseUrl: app.url });
      // Give a premature push every chance to arrive while the transaction is still open.
      await new Promise((r) => setTimeout(r, 300));
    });
    committed = true;
    const { n, committedBeforePush } = await pushed;
    expect(committedBeforePush).toBe(true);
    expect(n.message).toBe('after commit');
  });

  test('when the actor is the recipient, then no notification is created or pushed', async () => {
    const alice = await aUser(app);
    const phone = await app.socket(alice.token);
    const nothing = noEvent(phone, 'notification:created', 600);
    const body = await transaction(platform.db, (tx, events) => notify(tx, events, { recipientId: alice.id, actorId: alice.id, type: 'post_like', message: 'self' }, { baseUrl: app.url }));
    expect(body).toBeNull();
    await nothing;
  });
});

describe('notification:updated', () => {
  test("when one device marks a notification read, then the user's other device gets the updated notification", async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const n = await aNotification(app, alice.id);
    const phone = await app.socket(alice.token);
    const laptop = await app.socket(alice.token);
    const bobsPhone = await app.socket(bob.token);
    const onLaptop = nextEvent(laptop, 'notification:updated');
    const notBob = noEvent(bobsPhone, 'notification:updated', 800);

    const ack = await phone.timeout(5000).emitWithAck('notifications.update', { notification_id: n.id, is_read: true });

    expect(ack).toMatchObject({ status: 200, body: { id: n.id, is_read: true } });
    expect(await onLaptop).toEqual(ack.body);
    await notBob;
  });

  test('when the update is refused (not the recipient), then nothing is pushed', async () => {
    const alice = await aUser(app);
    const mallory = await aUser(app);
    const n = await aNotification(app, alice.id);
    const phone = await app.socket(alice.token);
    const nothing = noEvent(phone, 'notification:updated', 800);
    const res = await app.rest('PATCH', `/api/notifications/${n.id}/`, { token: mallory.token, body: { is_read: true } });
    expect(res.status).toBe(404);
    await nothing;
  });
});

describe('signing in on a live socket', () => {
  test('when an anonymous socket authenticates with auth:renew, then it receives its user\'s notifications from then on', async () => {
    const alice = await aUser(app);
    const s = await app.socket();
    const ack = await s.timeout(3000).emitWithAck('auth:renew', { token: alice.token });
    expect(ack).toMatchObject({ status: 200 });
    const pushed = nextEvent(s, 'notification:created');
    const created = await aNotification(app, alice.id, { message: 'hello signed-in socket' });
    expect(await pushed).toEqual(created);
    expect(await s.timeout(3000).emitWithAck('users.profile', {})).toMatchObject({ status: 200, body: { id: alice.id } });
  });
});

