import jwt from 'jsonwebtoken';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, callerFrom, normalised, expectRefreshCookie, refreshCookieHeader, type Caller } from '../helpers/caller.js';
import { sql } from '../helpers/sql.js';

/**
 * Contract: Accounts (refresh), Authentication 4, error table rows for refresh;
 * DESIGN.md 8: rotation on every use, a blacklisted token presented again revokes its whole family,
 * cookie or {refresh} body, both answering {access_token, refresh_token}; refresh errors are 401.
 */
let app: TestApp;
beforeAll(async () => {
  // Reuse detection at once: the grace window for concurrent refreshes is tested in accounts-sessions.test.ts.
  app = await startTestApp({ REFRESH_REUSE_GRACE_SECONDS: '0' });
});
afterAll(async () => {
  await app.stop();
});

const INVALID = { error: 'Invalid or blacklisted refresh token' };
const refreshWithBody = (caller: Caller, refresh: string) => caller.rest('POST', '/api/auth/refresh/', { body: { refresh } });
const refreshWithCookie = (caller: Caller, refresh: string) => caller.rest('POST', '/api/auth/refresh/', { cookies: { refresh_token: refresh } });

describe('POST /api/auth/refresh/', () => {
  test('when the refresh cookie is sent with an empty body, then 200 with new tokens and a rotated cookie', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const res = await refreshWithCookie(caller, user.refresh);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'refresh_token']);
    expect(res.body.refresh_token).not.toBe(user.refresh);
    expectRefreshCookie(res.headers, res.body.refresh_token);
    const profile = await caller.rest('GET', '/api/users/profile/', { token: res.body.access_token });
    expect(profile).toMatchObject({ status: 200, body: { id: user.id } });
    // The new refresh token belongs to the same session (family) and the same user.
    const before = jwt.decode(user.refresh) as jwt.JwtPayload;
    const after = jwt.decode(res.body.refresh_token) as jwt.JwtPayload;
    expect(after).toMatchObject({ sub: user.id, type: 'refresh', fam: before.fam });
    expect(after.jti).not.toBe(before.jti);
  });

  test('when the token is sent as {refresh} in the body, then 200 with new tokens', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const res = await refreshWithBody(caller, user.refresh);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'refresh_token']);
    const next = await refreshWithBody(caller, res.body.refresh_token);
    expect(next.status).toBe(200);
  });

  test('when a refresh token is presented a second time, then 401 Invalid or blacklisted refresh token', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    expect((await refreshWithBody(caller, user.refresh)).status).toBe(200);
    const again = await refreshWithCookie(caller, user.refresh);
    expect(again.status).toBe(401);
    expect(again.body).toEqual(INVALID);
    expect(refreshCookieHeader(again.headers)).toBeUndefined();
    const [row] = await sql('SELECT revoked_at FROM refresh_tokens WHERE jti = $1', [(jwt.decode(user.refresh) as jwt.JwtPayload).jti]);
    expect(row.revoked_at).not.toBeNull();
  });

  test('when a blacklisted token comes back, then its whole family is revoked, the newest token included, and other sessions live on', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const first = user.refresh;
    const second = (await refreshWithBody(caller, first)).body.refresh_token as string;
    const third = (await refreshWithBody(caller, second)).body.refresh_token as string;
    // Another session of the same user (a second device).
    const otherDevice = (await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } })).body.refresh_token as string;

    expect(await refreshWithBody(caller, first)).toMatchObject({ status: 401, body: INVALID });
    // The newest token of the family, never used, is now refused too.
    expect(await refreshWithBody(caller, third)).toMatchObject({ status: 401, body: INVALID });
    expect(await refreshWithCookie(caller, third)).toMatchObject({ status: 401, body: INVALID });
    // The other session is untouched.
    expect((await refreshWithBody(caller, otherDevice)).status).toBe(200);
  });

  test('when no token is presented, then 401 Refresh token missing', async () => {
    const caller = callerFrom(app);
    const empty = await caller.rest('POST', '/api/auth/refresh/');
    expect(empty.status).toBe(401);
    expect(empty.body).toEqual({ error: 'Refresh token missing' });
    const emptyJson = await caller.rest('POST', '/api/auth/refresh/', { body: {} });
    expect(emptyJson).toMatchObject({ status: 401, body: { error: 'Refresh token missing' } });
  });

  test('when the user of the token was deleted, then 401 User not found', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    await sql('DELETE FROM users WHERE id = $1', [user.id]);
    const res = await refreshWithBody(caller, user.refresh);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'User not found' });
  });

  test('when an access token, a forged token or garbage is presented as refresh token, then 401 invalid', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    expect(await refreshWithBody(caller, user.token)).toMatchObject({ status: 401, body: INVALID });
    expect(await refreshWithCookie(caller, user.token)).toMatchObject({ status: 401, body: INVALID });
    const claims = jwt.decode(user.refresh) as jwt.JwtPayload;
    const forged = jwt.sign({ type: 'refresh', jti: claims.jti, fam: claims.fam }, 'not-the-secret', { subject: user.id, expiresIn: 3600 });
    expect(await refreshWithBody(caller, forged)).toMatchObject({ status: 401, body: INVALID });
    expect(await refreshWithBody(caller, 'not.a.token')).toMatchObject({ status: 401, body: INVALID });
    // None of that used up the real token.
    expect((await refreshWithBody(caller, user.refresh)).status).toBe(200);
  });

  test('when refreshing over the socket, then status and body are those of REST (tokens aside), errors included', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const login = await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } });
    const rest = await refreshWithBody(caller, user.refresh);
    const socket = await caller.emit('accounts.refresh', { refresh: login.body.refresh_token });
    expect(rest.status).toBe(200);
    expect(socket.status).toBe(200);
    expect(normalised(socket.body)).toEqual(normalised(rest.body));
    // The socket rotated too: its new token works once, the presented one is blacklisted.
    expect(await caller.emit('accounts.refresh', { refresh: login.body.refresh_token })).toEqual({ status: 401, body: INVALID });

    const missingRest = await caller.rest('POST', '/api/auth/refresh/', { body: {} });
    const missingSocket = await caller.emit('accounts.refresh', {});
    expect(missingSocket).toEqual({ status: missingRest.status, body: missingRest.body });
    expect(missingSocket).toEqual({ status: 401, body: { error: 'Refresh token missing' } });

    const invalidRest = await refreshWithBody(caller, user.token);
    const invalidSocket = await caller.emit('accounts.refresh', { refresh: user.token });
    expect(invalidSocket).toEqual({ status: invalidRest.status, body: invalidRest.body });

    const gone = await aUserFrom(caller);
    await sql('DELETE FROM users WHERE id = $1', [gone.id]);
    const goneSocket = await caller.emit('accounts.refresh', { refresh: gone.refresh });
    expect(goneSocket).toEqual({ status: 401, body: { error: 'User not found' } });
  });
});
