import crypto from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { nextEvent, noEvent, startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { sql } from '../helpers/sql.js';
import { transaction } from '../../src/platform/db.js';
import { platform } from '../../src/platform/index.js';
import { notify, notifyMany } from '../../src/modules/notifications/notifications.service.js';
import type { NotificationBody } from '../../src/modules/notifications/notifications.serializer.js';

/**
 * notifyMany: one notification for many recipients, set-based (one INSERT ... SELECT over unnest, one read),
 * each recipient's devices told after the commit; the actor and duplicates are left out.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

/** `n` users inserted directly (registering 200 users through argon2 would cost the run minutes). */
async function someUsers(n: number): Promise<string[]> {
  const names = Array.from({ length: n }, () => unique('fan'));
  const rows = await sql<{ id: string }>(
    `INSERT INTO users (email, username, display_name, password_hash, referral_code)
     SELECT name || '@example.test', name, 'Fan ' || name, 'not-a-hash', upper(name)
     FROM unnest($1::text[]) WITH ORDINALITY AS t(name, ord) ORDER BY ord RETURNING id`,
    [names],
  );
  return rows.map((r) => r.id);
}

const countFor = async (ids: string[], targetId: string) =>
  Object.fromEntries(
    (await sql<{ user_id: string; n: number }>('SELECT user_id, count(*)::int AS n FROM notifications WHERE target_id = $1 AND user_id = ANY($2) GROUP BY user_id', [targetId, ids])).map((r) => [r.user_id, r.n]),
  );

describe('notifyMany', () => {
  test('when 200 users are notified, with duplicates and the actor among them, then each gets one row and one push on its own room, and the actor none', async () => {
    const actor = await aUser(app);
    const [alice, bob] = [await aUser(app), await aUser(app)];
    const others = await someUsers(198);
    const recipients = [alice.id, bob.id, ...others];
    const targetId = crypto.randomUUID();
    const [alicePhone, bobPhone, actorPhone]: Socket[] = [await app.socket(alice.token), await app.socket(bob.token), await app.socket(actor.token)];
    const toAlice = nextEvent<NotificationBody>(alicePhone, 'notification:created');
    const toBob = nextEvent<NotificationBody>(bobPhone, 'notification:created');
    const notToActor = noEvent(actorPhone, 'notification:created', 800);
    const bobsPushes: NotificationBody[] = [];
    bobPhone.on('notification:created', (n: NotificationBody) => bobsPushes.push(n));

    const bodies = await transaction(platform.db, (tx, events) =>
      notifyMany(tx, events, [...recipients, actor.id, bob.id, alice.id], { actorId: actor.id, type: 'new_post', targetType: 'Post', targetId, message: `${actor.username} posted in your community` }),
    );

    expect(bodies.map((b) => b.user)).toEqual(recipients);
    const counts = await countFor([...recipients, actor.id], targetId);
    expect(Object.keys(counts)).toHaveLength(200);
    expect(Object.values(counts).every((n) => n === 1)).toBe(true);
    expect(counts[actor.id]).toBeUndefined();

    const pushed = await toAlice;
    expect(pushed).toEqual(bodies[0]);
    expect(pushed).toMatchObject({
      user: alice.id,
      actor: { id: actor.id, username: actor.username, display_name: actor.body.display_name, profile_picture: null },
      actor_username: actor.username,
      notification_type: 'new_post',
      target_type: 'Post',
      target_id: targetId,
      is_read: false,
    });
    expect(await toBob).toEqual(bodies[1]);
    await notToActor;
    // Bob was listed twice: one push only.
    expect(bobsPushes).toHaveLength(1);
    const list = await app.rest('GET', '/api/notifications/', { token: bob.token });
    expect(list.body.results).toEqual([bodies[1]]);
  });

  test('when the transaction rolls back, then nobody is notified and nothing is pushed', async () => {
    const alice = await aUser(app);
    const phone = await app.socket(alice.token);
    const nothing = noEvent(phone, 'notification:created', 800);
    const targetId = crypto.randomUUID();
    // Read before the transaction: the test's own `sql()` uses the pool, which on the embedded database has
    // only the connection the transaction holds.
    const others = await someUsers(3);
    await expect(
      transaction(platform.db, async (tx, events) => {
        await notifyMany(tx, events, [alice.id, ...others], { type: 'general', targetId, message: 'never committed' });
        throw new Error('the write that caused it failed');
      }),
    ).rejects.toThrow('the write that caused it failed');
    await nothing;
    expect(await sql('SELECT 1 FROM notifications WHERE target_id = $1', [targetId])).toEqual([]);
  });

  test('when only the actor, or nobody, or a user that no longer exists is listed, then nothing is written', async () => {
    const actor = await aUser(app);
    const targetId = crypto.randomUUID();
    const none = await transaction(platform.db, async (tx, events) => [
      ...(await notifyMany(tx, events, [actor.id, actor.id], { actorId: actor.id, type: 'general', targetId, message: 'self' })),
      ...(await notifyMany(tx, events, [], { type: 'general', targetId, message: 'nobody' })),
      ...(await notifyMany(tx, events, [crypto.randomUUID()], { type: 'general', targetId, message: 'gone' })),
      await notify(tx, events, { recipientId: actor.id, actorId: actor.id, type: 'general', targetId, message: 'self again' }),
    ]);
    expect(none).toEqual([null]);
    expect(await sql('SELECT 1 FROM notifications WHERE target_id = $1', [targetId])).toEqual([]);
  });
});
