import { nextEvent, startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { sql } from 'drizzle-orm';
import { aUser } from '../builders/users.js';
import { platform } from '../../src/platform/index.js';

/** This app creates an administrator from ADMIN_EMAIL/ADMIN_PASSWORD on start. */
const admin = { email: `${unique('admin')}@example.test`, password: 'admin-password-long' };
let app: TestApp;
let adminToken: string;
beforeAll(async () => {
  app = await startTestApp({ ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password });
  const login = await app.rest('POST', '/api/auth/login/', { body: { username: admin.email, password: admin.password } });
  expect(login.status).toBe(200);
  adminToken = login.body.access_token;
});
afterAll(async () => {
  await app.stop();
});

const withoutUpdatedAt = ({ updated_at: _ignored, ...rest }: Record<string, unknown>) => rest;

describe('PATCH /api/admin/users/{username}/', () => {
  test('when an administrator sets is_verified, then the user is verified everywhere', async () => {
    const alice = await aUser(app);
    const res = await app.rest('PATCH', `/api/admin/users/${alice.username}/`, { token: adminToken, body: { is_verified: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ username: alice.username, is_verified: true });
    expect(res.body).not.toHaveProperty('latitude');
    expect((await app.rest('GET', `/api/users/${alice.username}`)).body.is_verified).toBe(true);
    expect((await app.rest('GET', '/api/users/profile/', { token: alice.token })).body.is_verified).toBe(true);
    // The user's own profile update still cannot take it away (nor grant it).
    await app.rest('PATCH', '/api/users/profile/', { token: alice.token, body: { is_verified: false } });
    expect((await app.rest('GET', `/api/users/${alice.username}`)).body.is_verified).toBe(true);
  });

  test('when a normal user calls it, then 403; without a token, 401', async () => {
    const mallory = await aUser(app);
    const forbidden = await app.rest('PATCH', `/api/admin/users/${mallory.username}/`, { token: mallory.token, body: { is_verified: true } });
    expect(forbidden).toMatchObject({ status: 403, body: { detail: 'You do not have permission to perform this action.' } });
    const anonymous = await app.rest('PATCH', `/api/admin/users/${mallory.username}/`, { body: { is_verified: true } });
    expect(anonymous).toMatchObject({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
    expect((await app.rest('GET', `/api/users/${mallory.username}`)).body.is_verified).toBe(false);
  });

  test('when the username is unknown, then 404', async () => {
    const res = await app.rest('PATCH', `/api/admin/users/${unique('ghost')}/`, { token: adminToken, body: { is_verified: true } });
    expect(res).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
  });

  test('when an administrator deactivates a user, then its live sockets are closed, its token stops working and its profile is gone', async () => {
    const alice = await aUser(app);
    const s = await app.socket(alice.token);
    const closed = nextEvent(s, 'disconnect');
    const res = await app.rest('PATCH', `/api/admin/users/${alice.username}/`, { token: adminToken, body: { is_active: false } });
    expect(res).toMatchObject({ status: 200, body: { is_active: false } });
    expect(await closed).toBe('io server disconnect');
    expect((await app.rest('GET', '/api/users/profile/', { token: alice.token })).status).toBe(401);
    expect((await app.rest('GET', `/api/users/${alice.username}`)).status).toBe(404);
  });

  test('when the same change runs over REST and the socket, then status and body are identical (apart from updated_at)', async () => {
    const alice = await aUser(app);
    const rest = await app.rest('PATCH', `/api/admin/users/${alice.username}/`, { token: adminToken, body: { is_verified: true } });
    const socket = await app.emit('admin.users_update', { username: alice.username, is_verified: true }, { token: adminToken });
    expect(rest.status).toBe(200);
    expect(socket.status).toBe(rest.status);
    expect(withoutUpdatedAt(socket.body)).toEqual(withoutUpdatedAt(rest.body));
    const deniedRest = await app.rest('PATCH', `/api/admin/users/${alice.username}/`, { token: alice.token, body: { is_verified: false } });
    const deniedSocket = await app.emit('admin.users_update', { username: alice.username, is_verified: false }, { token: alice.token });
    expect(deniedRest.status).toBe(403);
    expect(deniedSocket).toEqual({ status: deniedRest.status, body: deniedRest.body });
  });
});

describe('POST /api/admin/users/', () => {
  const fields = () => {
    const username = unique('made');
    return { email: `${username}@example.test`, username, display_name: 'Made By Admin', password: 'made-password-1' };
  };

  test('when an administrator creates accounts past the registration budget of its address, then each is created, answers its tokens and sets no cookie', async () => {
    // register allows 20 an hour per address; administrators are not counted against it.
    for (let i = 0; i < 21; i++) {
      const body = fields();
      const res = await app.rest('POST', '/api/admin/users/', { token: adminToken, body });
      expect(res).toMatchObject({ status: 201, body: { user: { username: body.username, email: body.email } } });
      expect(res.headers['set-cookie']).toBeUndefined();
      if (i === 0) {
        expect((await app.rest('GET', '/api/users/profile/', { token: res.body.access_token })).body.username).toBe(body.username);
        const login = await app.rest('POST', '/api/auth/login/', { body: { username: body.username, password: body.password } });
        expect(login.status).toBe(200);
      }
    }
  });

  test('when the username is taken, then the same field error as register', async () => {
    const body = fields();
    expect((await app.rest('POST', '/api/admin/users/', { token: adminToken, body })).status).toBe(201);
    const again = await app.rest('POST', '/api/admin/users/', { token: adminToken, body: { ...body, email: `other-${body.email}` } });
    expect(again).toMatchObject({ status: 400, body: { username: ['A user with that username already exists.'] } });
  });

  test('when a normal user or nobody calls it, then 403 or 401 and no account', async () => {
    const mallory = await aUser(app);
    const body = fields();
    expect((await app.rest('POST', '/api/admin/users/', { token: mallory.token, body })).status).toBe(403);
    expect((await app.rest('POST', '/api/admin/users/', { body })).status).toBe(401);
    // Staff is not enough: creating accounts is for administrators.
    const staff = await aUser(app);
    await platform.db.execute(sql`UPDATE users SET is_staff = true WHERE id = ${staff.id}`);
    expect((await app.rest('POST', '/api/admin/users/', { token: staff.token, body })).status).toBe(403);
    expect((await app.rest('GET', `/api/users/${body.username}`)).status).toBe(404);
  });
});
