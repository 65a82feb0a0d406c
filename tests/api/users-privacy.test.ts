import { z } from 'zod';
import { nextEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser, type TestUser } from '../builders/users.js';
import { aNotification } from '../builders/notifications.js';
import { sql } from '../helpers/sql.js';
import { PNG_1X1 } from '../helpers/images.js';
import { operations } from '../../src/registry.js';
import { defineOperation, ok } from '../../src/core/operation.js';
import { transaction } from '../../src/platform/db.js';
import { platform } from '../../src/platform/index.js';
import { notify } from '../../src/modules/notifications/notifications.service.js';
import { findUserByUsername } from '../../src/modules/users/users.queries.js';

/**
 * What one user learns about another: emails only for the user themself and staff; URLs pushed to a user
 * never come from the Host header another user chose.
 */

/** Stands for any write of a later module that notifies someone (a like, a comment): the caller pokes `username`. */
const pokeOp = defineOperation({
  name: 'test.poke',
  method: 'POST',
  path: '/api/test/poke/',
  auth: 'user',
  summary: 'Notify a user, as a like or a comment would',
  tags: ['test'],
  input: z.object({ username: z.string() }),
  handler: async (input, ctx) => {
    const target = await findUserByUsername(input.username);
    const body = await transaction(platform.db, (tx, events) =>
      notify(tx, events, { recipientId: target!.id, actorId: ctx.user.id, type: 'general', message: `${ctx.user.username} poked you` }, ctx),
    );
    return ok(body);
  },
});

let app: TestApp;
let staff: TestUser;
beforeAll(async () => {
  app = await startTestApp({}, { operations: [...operations, pokeOp] });
  staff = await aUser(app);
  await sql('update users set is_staff = true where id = $1', [staff.id]);
});
afterAll(async () => {
  await app.stop();
});

async function neighbours(): Promise<[TestUser, TestUser]> {
  const alice = await aUser(app);
  const bob = await aUser(app);
  const place = { country: 'Privacyland', city: `Town ${alice.username}`, latitude: 48.1, longitude: 11.5 };
  for (const u of [alice, bob]) expect((await app.rest('POST', '/api/users/update-location/', { token: u.token, body: place })).status).toBe(200);
  return [alice, bob];
}

describe('email in user objects', () => {
  test('when a stranger or an anonymous caller reads a public profile, then it has no email key; the user and staff see it', async () => {
    const [alice, bob] = await neighbours();
    const anonymous = await app.rest('GET', `/api/users/${alice.username}`);
    const stranger = await app.rest('GET', `/api/users/${alice.username}`, { token: bob.token });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).not.toHaveProperty('email');
    expect(stranger.body).not.toHaveProperty('email');
    expect((await app.emit('users.get', { username: alice.username }, { token: bob.token })).body).not.toHaveProperty('email');
    expect((await app.rest('GET', `/api/users/${alice.username}`, { token: alice.token })).body.email).toBe(alice.email);
    expect((await app.rest('GET', `/api/users/${alice.username}`, { token: staff.token })).body.email).toBe(alice.email);
  });

  test('when users are listed nearby, then other users carry no email, except for staff', async () => {
    const [alice, bob] = await neighbours();
    const seenByBob = (await app.rest('GET', '/api/users/nearby-users/', { token: bob.token, query: { page_size: 50 } })).body.results;
    const aliceForBob = seenByBob.find((u: { id: string }) => u.id === alice.id);
    expect(aliceForBob).toBeDefined();
    expect(aliceForBob).not.toHaveProperty('email');
    await sql('update users set point = (select point from users where id = $1), location_id = (select location_id from users where id = $1) where id = $2', [alice.id, staff.id]);
    const seenByStaff = (await app.rest('GET', '/api/users/nearby-users/', { token: staff.token, query: { page_size: 50 } })).body.results;
    expect(seenByStaff.find((u: { id: string }) => u.id === alice.id).email).toBe(alice.email);
  });

  test('when users are searched, then the results carry no email', async () => {
    const [alice, bob] = await neighbours();
    const res = await app.rest('GET', '/api/users/search/', { token: bob.token, query: { query: alice.username } });
    expect(res.body.find((u: { id: string }) => u.id === alice.id)).toBeDefined();
    for (const u of res.body) expect(u).not.toHaveProperty('email');
  });

  test('when a notification names its actor, then the actor carries no email', async () => {
    const [alice, bob] = await neighbours();
    const created = await aNotification(app, bob.id, { actorId: alice.id });
    expect(created.actor).not.toHaveProperty('email');
    const listed = (await app.rest('GET', '/api/notifications/', { token: bob.token })).body.results[0];
    expect(listed.actor.id).toBe(alice.id);
    expect(listed.actor).not.toHaveProperty('email');
  });

  test('when a user registers, logs in, or reads and updates its own profile, then its email is there', async () => {
    const alice = await aUser(app);
    expect(alice.body.email).toBe(alice.email);
    expect((await app.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } })).body.user.email).toBe(alice.email);
    expect((await app.rest('GET', '/api/users/profile/', { token: alice.token })).body.email).toBe(alice.email);
    expect((await app.rest('PATCH', '/api/users/profile/', { token: alice.token, body: { bio: 'me' } })).body.email).toBe(alice.email);
  });
});

describe('URLs pushed to other users', () => {
  test("when a request with a forged Host header notifies another user, then the pushed URLs use the server's own base", async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const uploaded = await app.http().patch('/api/users/profile/').set('Authorization', `Bearer ${alice.token}`).attach('profile_picture', PNG_1X1, 'me.png');
    expect(uploaded.status).toBe(200);
    const bobsPhone = await app.socket(bob.token);
    const pushed = nextEvent(bobsPhone, 'notification:created');

    const res = await app.http().post('/api/test/poke/').set('Host', 'evil.example').set('Authorization', `Bearer ${alice.token}`).send({ username: bob.username });
    expect(res.status).toBe(200);

    const notification = await pushed;
    expect(JSON.stringify(notification)).not.toContain('evil.example');
    expect(notification.actor.profile_picture).toMatch(new RegExp(`^${app.url}/media/`));
    // The caller's own answers may follow its Host header: they go back to nobody but the caller.
    const own = await app.http().get('/api/users/profile/').set('Host', 'evil.example').set('Authorization', `Bearer ${alice.token}`);
    expect(own.body.profile_picture).toMatch(/^http:\/\/evil\.example\/media\//);
  });
});
