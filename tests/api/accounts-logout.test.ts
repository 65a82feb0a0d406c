import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, callerFrom, refreshCookieHeader } from '../helpers/caller.js';

/** Contract: Accounts (logout: "Logout removes the cookie"); the presented refresh token is blacklisted. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const LOGGED_OUT = { message: 'Successfully logged out.' };
const INVALID = { error: 'Invalid or blacklisted refresh token' };

describe('POST /api/auth/logout/', () => {
  test('when logging out with the refresh cookie, then the cookie is cleared and the token no longer refreshes', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const res = await caller.rest('POST', '/api/auth/logout/', { cookies: { refresh_token: user.refresh } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(LOGGED_OUT);
    const cookie = refreshCookieHeader(res.headers)!;
    expect(cookie).toMatch(/^refresh_token=;/);
    expect(cookie).toMatch(/Expires=Thu, 01 Jan 1970 00:00:00 GMT/);
    // Cleared with the attributes it was set with, or browsers keep the original.
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Secure/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const refresh = await caller.rest('POST', '/api/auth/refresh/', { cookies: { refresh_token: user.refresh } });
    expect(refresh).toMatchObject({ status: 401, body: INVALID });
  });

  test('when logging out with {refresh} in the body, then that token is blacklisted and other sessions live on', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const otherDevice = (await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } })).body.refresh_token;
    const res = await caller.rest('POST', '/api/auth/logout/', { body: { refresh: user.refresh } });
    expect(res).toMatchObject({ status: 200, body: LOGGED_OUT });
    expect(await caller.rest('POST', '/api/auth/refresh/', { body: { refresh: user.refresh } })).toMatchObject({ status: 401, body: INVALID });
    expect((await caller.rest('POST', '/api/auth/refresh/', { body: { refresh: otherDevice } })).status).toBe(200);
  });

  test('when logging out without any token, then 200 and the cookie is cleared anyway', async () => {
    const res = await callerFrom(app).rest('POST', '/api/auth/logout/');
    expect(res).toMatchObject({ status: 200, body: LOGGED_OUT });
    expect(refreshCookieHeader(res.headers)).toMatch(/^refresh_token=;.*Expires=Thu, 01 Jan 1970/);
  });

  test('when logging out over the socket, then status and body are those of REST and the token is blacklisted', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const second = (await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } })).body.refresh_token;
    const rest = await caller.rest('POST', '/api/auth/logout/', { body: { refresh: user.refresh } });
    const socket = await caller.emit('accounts.logout', { refresh: second });
    expect(socket).toEqual({ status: rest.status, body: rest.body });
    expect(await caller.emit('accounts.refresh', { refresh: second })).toEqual({ status: 401, body: INVALID });
    const anonymous = await caller.emit('accounts.logout', {});
    expect(anonymous).toEqual({ status: 200, body: LOGGED_OUT });
  });
});
