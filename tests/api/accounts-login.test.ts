import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, anIp, callerFrom, normalised, expectRefreshCookie, refreshCookieHeader } from '../helpers/caller.js';

/** Contract: Accounts (login), Authentication 3, error table "Login fails"; DESIGN.md 7 (429) and 8 (401). */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const THROTTLED = /^Request was throttled\. Expected available in (\d+) seconds?\.$/;

/** Asserts the contract's 429 and returns the announced wait in seconds. */
function expectThrottled(res: { status: number; body: any; headers: Record<string, any> }): number {
  expect(res.status).toBe(429);
  expect(Object.keys(res.body)).toEqual(['detail']);
  const match = THROTTLED.exec(res.body.detail);
  expect(match).not.toBeNull();
  expect(res.headers['retry-after']).toBe(match![1]);
  return Number(match![1]);
}

describe('POST /api/auth/login/', () => {
  test('when logging in with the username, then 200 with both tokens, the user and the refresh cookie', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const res = await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'refresh_token', 'user']);
    expect(res.body.user).toEqual(user.body);
    expect(res.body.access_token).not.toBe(user.token);
    expectRefreshCookie(res.headers, res.body.refresh_token);
    const profile = await caller.rest('GET', '/api/users/profile/', { token: res.body.access_token });
    expect(profile).toMatchObject({ status: 200, body: { id: user.id } });
  });

  test('when logging in with the email in another letter case or with the username in another case, then the same user is logged in', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const byEmail = await caller.rest('POST', '/api/auth/login/', { body: { username: user.email.toUpperCase(), password: user.password } });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.user.id).toBe(user.id);
    const byName = await caller.rest('POST', '/api/auth/login/', { body: { username: ` ${user.username.toUpperCase()} `, password: user.password } });
    expect(byName.status).toBe(200);
    expect(byName.body.user.id).toBe(user.id);
  });

  test('when the password is wrong or the user unknown, then 401 {error: Invalid credentials} and no cookie', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const wrong = await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: 'not-the-password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid credentials' });
    expect(refreshCookieHeader(wrong.headers)).toBeUndefined();
    const unknown = await caller.rest('POST', '/api/auth/login/', { body: { username: unique('nobody'), password: user.password } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ error: 'Invalid credentials' });
    const unknownEmail = await caller.rest('POST', '/api/auth/login/', { body: { username: `${unique('nobody')}@example.test`, password: user.password } });
    expect(unknownEmail.status).toBe(401);
    expect(unknownEmail.body).toEqual({ error: 'Invalid credentials' });
  });

  test('when fields are missing, then 400 names them', async () => {
    const res = await callerFrom(app).rest('POST', '/api/auth/login/', { body: {} });
    expect(res).toMatchObject({ status: 400, body: { username: ['This field is required.'], password: ['This field is required.'] } });
  });

  test('when one account gets more than 10 attempts in 5 minutes, even from different addresses, then 429 with Retry-After, even for the right password', async () => {
    const user = await aUserFrom(callerFrom(app));
    for (let i = 0; i < 10; i++) {
      // A new address each time: only the per-account budget can be what stops the 11th.
      const res = await callerFrom(app).rest('POST', '/api/auth/login/', { body: { username: user.username, password: `wrong-${i}-password` } });
      expect(res).toMatchObject({ status: 401, body: { error: 'Invalid credentials' } });
    }
    const blocked = await callerFrom(app).rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } });
    const wait = expectThrottled(blocked);
    expect(wait).toBeGreaterThan(200);
    expect(wait).toBeLessThanOrEqual(300);
    // Another account is not affected.
    const other = await aUserFrom(callerFrom(app));
    const fine = await callerFrom(app).rest('POST', '/api/auth/login/', { body: { username: other.username, password: other.password } });
    expect(fine.status).toBe(200);
  }, 120_000);

  test('when the attempts on one account alternate between its username and its email, then they share one budget', async () => {
    const user = await aUserFrom(callerFrom(app));
    for (let i = 0; i < 10; i++) {
      const identifier = i % 2 === 0 ? user.username : user.email.toUpperCase();
      const res = await callerFrom(app).rest('POST', '/api/auth/login/', { body: { username: identifier, password: `wrong-${i}-password` } });
      expect(res.status).toBe(401);
    }
    expectThrottled(await callerFrom(app).rest('POST', '/api/auth/login/', { body: { username: user.email, password: user.password } }));
    expectThrottled(await callerFrom(app).rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } }));
  }, 120_000);

  test('when a login succeeds, then the failed attempts counted on the account are forgotten', async () => {
    const user = await aUserFrom(callerFrom(app));
    const attempt = (password: string) => callerFrom(app).rest('POST', '/api/auth/login/', { body: { username: user.username, password } });
    for (let i = 0; i < 9; i++) expect((await attempt('wrong-password')).status).toBe(401);
    expect((await attempt(user.password)).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await attempt('wrong-password')).status).toBe(401);
    expect((await attempt(user.password)).status).toBe(200);
  }, 120_000);

  test('when one address makes more than 30 attempts in a minute, then 429 for that address only', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(callerFrom(app));
    // Distinct unknown names, so no per-account budget runs out, only the address's. A blank password
    // fails validation after the attempt is counted, which keeps 30 attempts quick (no password hashing).
    for (let i = 0; i < 30; i++) {
      const res = await caller.rest('POST', '/api/auth/login/', { body: { username: unique('spray'), password: '' } });
      expect(res).toMatchObject({ status: 400, body: { password: ['This field may not be blank.'] } });
    }
    const wait = expectThrottled(await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } }));
    expect(wait).toBeLessThanOrEqual(60);
    // The socket counts the same address.
    const overSocket = await caller.emit('accounts.login', { username: user.username, password: user.password });
    expect(overSocket.status).toBe(429);
    expect(overSocket.body).toEqual({ detail: expect.stringMatching(THROTTLED) });
    // Another address is served.
    const elsewhere = await callerFrom(app, anIp()).rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } });
    expect(elsewhere.status).toBe(200);
  }, 120_000);

  test('when logging in over the socket, then status and body are those of REST (tokens aside), errors included', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const input = { username: user.username, password: user.password };
    const rest = await caller.rest('POST', '/api/auth/login/', { body: input });
    const socket = await caller.emit('accounts.login', input);
    expect(rest.status).toBe(200);
    expect(socket.body.user).toEqual(rest.body.user);
    expect(normalised(socket.body)).toEqual(normalised(rest.body));
    expect(socket.status).toBe(rest.status);
    // The socket's tokens work like REST's.
    const profile = await caller.rest('GET', '/api/users/profile/', { token: socket.body.access_token });
    expect(profile).toMatchObject({ status: 200, body: { id: user.id } });

    const bad = { username: user.username, password: 'wrong-password' };
    const badRest = await caller.rest('POST', '/api/auth/login/', { body: bad });
    const badSocket = await caller.emit('accounts.login', bad);
    expect(badRest).toMatchObject({ status: 401, body: { error: 'Invalid credentials' } });
    expect(badSocket).toEqual({ status: badRest.status, body: badRest.body });

    const emptyRest = await caller.rest('POST', '/api/auth/login/', { body: {} });
    const emptySocket = await caller.emit('accounts.login', {});
    expect(emptyRest.status).toBe(400);
    expect(emptySocket).toEqual({ status: emptyRest.status, body: emptyRest.body });
  });
});
