import { startTestApp, unique, nextEvent, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, callerFrom, type Caller } from '../helpers/caller.js';
import { sql } from '../helpers/sql.js';
import { bootstrapAdmin } from '../../src/modules/accounts/admin-bootstrap.js';

/**
 * ADMIN_EMAIL/ADMIN_PASSWORD bootstrap, and what deactivation (PATCH /api/admin/users/{username}/
 * {is_active: false}) does to an account: no login, its tokens refused on REST and on the socket.
 */
const ADMIN_LOCAL = unique('admin');
const ADMIN_EMAIL = `${ADMIN_LOCAL}@example.test`;
const ADMIN_PASSWORD = 'admin-password-' + unique();

let app: TestApp;
let adminToken: string;
beforeAll(async () => {
  app = await startTestApp({ ADMIN_EMAIL, ADMIN_PASSWORD });
  const login = await callerFrom(app).rest('POST', '/api/auth/login/', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
  if (login.status !== 200) throw new Error(`admin login answered ${login.status} ${JSON.stringify(login.body)}`);
  adminToken = login.body.access_token;
});
afterAll(async () => {
  await app.stop();
});

const deactivate = (caller: Caller, username: string) => caller.rest('PATCH', `/api/admin/users/${username}/`, { token: adminToken, body: { is_active: false } });

describe('administrator bootstrap from ADMIN_EMAIL', () => {
  test('when the app starts with ADMIN_EMAIL and ADMIN_PASSWORD, then that administrator exists, can log in and administer', async () => {
    const caller = callerFrom(app);
    const login = await caller.rest('POST', '/api/auth/login/', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ email: ADMIN_EMAIL, username: ADMIN_LOCAL, is_verified: true });
    const [row] = await sql('SELECT is_admin, is_staff, is_active FROM users WHERE lower(email) = lower($1)', [ADMIN_EMAIL]);
    expect(row).toEqual({ is_admin: true, is_staff: true, is_active: true });

    // Administrator rights: granting verification works for the admin and is forbidden to anyone else.
    const someone = await aUserFrom(caller);
    const granted = await caller.rest('PATCH', `/api/admin/users/${someone.username}/`, { token: login.body.access_token, body: { is_verified: true } });
    expect(granted.status).toBe(200);
    expect(granted.body.is_verified).toBe(true);
    const forbidden = await caller.rest('PATCH', `/api/admin/users/${someone.username}/`, { token: someone.token, body: { is_verified: true } });
    expect(forbidden).toMatchObject({ status: 403, body: { detail: 'You do not have permission to perform this action.' } });
  });

  test('when the bootstrap runs again (a restart), then no second administrator is created and the password is kept', async () => {
    await bootstrapAdmin();
    const rows = await sql('SELECT id FROM users WHERE lower(email) = lower($1)', [ADMIN_EMAIL]);
    expect(rows).toHaveLength(1);
    const login = await callerFrom(app).rest('POST', '/api/auth/login/', { body: { username: ADMIN_LOCAL, password: ADMIN_PASSWORD } });
    expect(login.status).toBe(200);
  });
});

describe('a deactivated account', () => {
  test('when an administrator deactivates a user, then the user cannot log in, even with the right password', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const res = await deactivate(caller, user.username);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ username: user.username, is_active: false });
    const login = await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } });
    expect(login.status).toBe(401);
    expect(login.body).toEqual({ error: 'Invalid credentials' });
    const overSocket = await caller.emit('accounts.login', { username: user.email, password: user.password });
    expect(overSocket).toEqual({ status: login.status, body: login.body });
  });

  test('when a deactivated user presents its access token on REST, then 401 Given token not valid for any token type', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    expect((await caller.rest('GET', '/api/users/profile/', { token: user.token })).status).toBe(200);
    await deactivate(caller, user.username);
    const res = await caller.rest('GET', '/api/users/profile/', { token: user.token });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ detail: 'Given token not valid for any token type' });
  });

  test('when a deactivated user opens a socket with its access token, then the handshake fails with unauthorized', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const live = await app.socket(user.token);
    const dropped = nextEvent(live, 'disconnect');
    await deactivate(caller, user.username);
    // A socket already open is disconnected by the server.
    expect(await dropped).toBe('io server disconnect');
    await expect(app.socket(user.token)).rejects.toThrow('unauthorized');
  });

  test('when a deactivated user presents its refresh token, then 401 and no new tokens', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    await deactivate(caller, user.username);
    const res = await caller.rest('POST', '/api/auth/refresh/', { body: { refresh: user.refresh } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'User not found' });
    // Its sessions were revoked as well, so reactivation does not bring the old tokens back.
    const live = await sql('SELECT jti FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL', [user.id]);
    expect(live).toHaveLength(0);
  });

  test('when a deactivated user asks for a password reset, then it is treated as an unknown email', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    await deactivate(caller, user.username);
    const res = await caller.rest('POST', '/api/auth/password-reset/request/', { body: { email: user.email } });
    expect(res).toMatchObject({ status: 400, body: { email: ['User with this email does not exist.'] } });
    const confirm = await caller.rest('POST', '/api/auth/password-reset/confirm/', { body: { email: user.email, otp: '123456', new_password: 'whatever-password' } });
    expect(confirm).toMatchObject({ status: 400, body: { non_field_errors: ['Invalid user.'] } });
  });

  test('when the user is reactivated, then it can log in again but its old refresh token stays dead', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    await deactivate(caller, user.username);
    const back = await caller.rest('PATCH', `/api/admin/users/${user.username}/`, { token: adminToken, body: { is_active: true } });
    expect(back).toMatchObject({ status: 200, body: { is_active: true } });
    const login = await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } });
    expect(login.status).toBe(200);
    const old = await caller.rest('POST', '/api/auth/refresh/', { body: { refresh: user.refresh } });
    expect(old).toMatchObject({ status: 401, body: { error: 'Invalid or blacklisted refresh token' } });
  });
});
