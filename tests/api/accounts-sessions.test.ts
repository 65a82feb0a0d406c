import jwt from 'jsonwebtoken';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, callerFrom, type Caller } from '../helpers/caller.js';
import { sql } from '../helpers/sql.js';
import { domainEvents, type DomainEvent } from '../../src/core/events.js';
import { accessReads, userFromAccessClaims, type AccessClaims } from '../../src/modules/accounts/tokens.js';

/**
 * Issue "Access tokens outlive logout, password reset and family revocation": an access token stops
 * working when its session ends (logout, refresh-token reuse) or when all of the user's sessions end
 * (password reset: accounts-password-reset.test.ts; deactivation), on REST and at the socket handshake.
 * Two tabs refreshing with the same token at once share one successor (grace window, 20 s by default).
 */
let app: TestApp;
let adminToken: string;
const ADMIN_EMAIL = `sessions-admin-${Date.now()}@example.test`;
const ADMIN_PASSWORD = 'sessions-admin-password';
beforeAll(async () => {
  app = await startTestApp({ ADMIN_EMAIL, ADMIN_PASSWORD });
  adminToken = (await callerFrom(app).rest('POST', '/api/auth/login/', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body.access_token;
});
afterAll(async () => {
  await app.stop();
});

const INVALID_TOKEN = { detail: 'Given token not valid for any token type' };
const profile = (caller: Caller, token: string) => caller.rest('GET', '/api/users/profile/', { token });
const login = async (caller: Caller, user: { username: string; password: string }) =>
  (await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } })).body as { access_token: string; refresh_token: string };
const refresh = (caller: Caller, token: string) => caller.rest('POST', '/api/auth/refresh/', { body: { refresh: token } });
const claims = (token: string) => jwt.decode(token) as jwt.JwtPayload;

/** Whether a socket handshake with `token` is accepted. */
async function socketAccepts(token: string): Promise<boolean> {
  try {
    (await app.socket(token)).close();
    return true;
  } catch (err) {
    expect((err as Error).message).toBe('unauthorized');
    return false;
  }
}

/** The user.access_changed events published while `fn` runs. */
async function accessChangesDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const stop = domainEvents.subscribe((event: DomainEvent) => {
    if (event.name === 'user.access_changed') seen.push(event.payload.userId);
  });
  try {
    await fn();
  } finally {
    stop();
  }
  return seen;
}

describe('logout', () => {
  test('when one device logs out, then its access token is refused on REST and the socket, and the other device stays signed in', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const other = await login(caller, user);
    const changes = await accessChangesDuring(async () => {
      expect((await caller.rest('POST', '/api/auth/logout/', { body: { refresh: user.refresh } })).status).toBe(200);
    });
    expect(changes).toEqual([user.id]);
    expect(await profile(caller, user.token)).toMatchObject({ status: 401, body: INVALID_TOKEN });
    expect(await socketAccepts(user.token)).toBe(false);
    expect((await profile(caller, other.access_token)).status).toBe(200);
    expect(await socketAccepts(other.access_token)).toBe(true);
    expect((await refresh(caller, other.refresh_token)).status).toBe(200);
  });

  test('when a refreshed session logs out, then the access tokens of every rotation of it are refused', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const rotated = (await refresh(caller, user.refresh)).body;
    await caller.rest('POST', '/api/auth/logout/', { body: { refresh: rotated.refresh_token } });
    for (const token of [user.token, rotated.access_token]) expect((await profile(caller, token)).status).toBe(401);
  });
});

describe('refresh: two tabs at once, and reuse', () => {
  test('when two refreshes with the same token run at the same moment, then both succeed with the same successor', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const [a, b] = await Promise.all([refresh(caller, user.refresh), refresh(caller, user.refresh)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(claims(a.body.refresh_token).jti).toBe(claims(b.body.refresh_token).jti);
    expect(claims(a.body.refresh_token).fam).toBe(claims(user.refresh).fam);
    // Both tabs are signed in, and the session goes on with the one successor.
    for (const res of [a, b]) expect((await profile(caller, res.body.access_token)).status).toBe(200);
    expect((await refresh(caller, b.body.refresh_token)).status).toBe(200);
  });

  test('when a rotated token comes back after the grace window, then the whole session ends, its access tokens included', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const next = (await refresh(caller, user.refresh)).body;
    // The rotation happened a minute ago (past the 20 s window).
    await sql("UPDATE refresh_tokens SET revoked_at = now() - interval '1 minute' WHERE jti = $1", [claims(user.refresh).jti]);
    const changes = await accessChangesDuring(async () => {
      expect(await refresh(caller, user.refresh)).toMatchObject({ status: 401, body: { error: 'Invalid or blacklisted refresh token' } });
    });
    expect(changes).toEqual([user.id]);
    expect((await refresh(caller, next.refresh_token)).status).toBe(401);
    for (const token of [user.token, next.access_token]) expect(await profile(caller, token)).toMatchObject({ status: 401, body: INVALID_TOKEN });
    expect(await socketAccepts(next.access_token)).toBe(false);
  });

  test('when a rotated token comes back after its successor was used, then it is reuse even within the window', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const next = (await refresh(caller, user.refresh)).body;
    expect((await refresh(caller, next.refresh_token)).status).toBe(200);
    expect((await refresh(caller, user.refresh)).status).toBe(401);
    expect((await profile(caller, next.access_token)).status).toBe(401);
  });
});

describe('invalidation time and the one-second resolution of iat', () => {
  test('when sessions were invalidated a millisecond before a token was issued, in the same second, then the token is accepted; a millisecond after, refused', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const issuedMs = claims(user.token).iat_ms as number;
    expect(typeof issuedMs).toBe('number');
    // Set by hand, then announced as the service announces every invalidation (sessions.ts endAllSessions), so
    // that the nodes' caller caches read the new time.
    const invalidateAt = async (ms: number) => {
      await sql('UPDATE users SET tokens_valid_after = to_timestamp($2::double precision / 1000) WHERE id = $1', [user.id, ms]);
      domainEvents.publish('user.access_changed', { userId: user.id });
    };
    await invalidateAt(issuedMs - 1);
    expect((await profile(caller, user.token)).status).toBe(200);
    await invalidateAt(issuedMs);
    expect((await profile(caller, user.token)).status).toBe(401);
  });
});

describe('deactivation and rights', () => {
  const patch = (caller: Caller, username: string, body: Record<string, boolean>) => caller.rest('PATCH', `/api/admin/users/${username}/`, { token: adminToken, body });

  test('when a deactivated user is reactivated, then its old access tokens stay refused and a new login works', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const changes = await accessChangesDuring(() => patch(caller, user.username, { is_active: false }));
    expect(changes).toEqual([user.id]);
    await patch(caller, user.username, { is_active: true });
    expect(await profile(caller, user.token)).toMatchObject({ status: 401, body: INVALID_TOKEN });
    expect(await socketAccepts(user.token)).toBe(false);
    const fresh = (await login(caller, user)).access_token;
    expect((await profile(caller, fresh)).status).toBe(200);
    // A socket opened with the new token can call operations, not only connect.
    const socket = await app.socket(fresh);
    try {
      expect(await socket.timeout(10000).emitWithAck('users.profile', {})).toMatchObject({ status: 200, body: { id: user.id } });
    } finally {
      socket.close();
    }
  });

  test('when an administrator changes is_staff or is_verified, then user.access_changed is published; a no-op change publishes nothing', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    expect(await accessChangesDuring(() => patch(caller, user.username, { is_staff: true }))).toEqual([user.id]);
    expect(await accessChangesDuring(() => patch(caller, user.username, { is_verified: true }))).toEqual([user.id]);
    expect(await accessChangesDuring(() => patch(caller, user.username, { is_verified: true, is_staff: true }))).toEqual([]);
  });
});

describe('callers checked together', () => {
  test('when requests of several callers arrive at once, then each is answered as its own caller, and those whose session ended are refused', async () => {
    const caller = callerFrom(app);
    const users: Array<Awaited<ReturnType<typeof aUserFrom>>> = [];
    for (let i = 0; i < 5; i++) users.push(await aUserFrom(callerFrom(app)));
    const [loggedOut, deactivated, reset] = users;
    expect((await caller.rest('POST', '/api/auth/logout/', { body: { refresh: loggedOut.refresh } })).status).toBe(200);
    expect((await caller.rest('PATCH', `/api/admin/users/${deactivated.username}/`, { token: adminToken, body: { is_active: false } })).status).toBe(200);
    await sql('UPDATE users SET tokens_valid_after = now() WHERE id = $1', [reset.id]);
    const ended = new Set([loggedOut.id, deactivated.id, reset.id]);
    const requests = [0, 1, 2, 3].flatMap(() => users);
    const answers = await Promise.all(requests.map((user) => profile(caller, user.token)));
    answers.forEach((res, i) => {
      const user = requests[i];
      if (ended.has(user.id)) expect(res).toMatchObject({ status: 401, body: INVALID_TOKEN });
      else expect(res).toMatchObject({ status: 200, body: { id: user.id, username: user.username } });
    });
  });

  test('when callers are checked at the same moment, then one database read answers them all, each with its own user', async () => {
    const caller = callerFrom(app);
    const users: Array<Awaited<ReturnType<typeof aUserFrom>>> = [];
    for (let i = 0; i < 3; i++) users.push(await aUserFrom(callerFrom(app)));
    await caller.rest('POST', '/api/auth/logout/', { body: { refresh: users[2].refresh } });
    const checks = Array.from({ length: 30 }, (_, i) => users[i % 3]);
    const before = { ...accessReads };
    const checked = await Promise.all(checks.map((user) => userFromAccessClaims(claims(user.token) as AccessClaims)));
    expect({ reads: accessReads.reads - before.reads, callers: accessReads.callers - before.callers }).toEqual({ reads: 1, callers: 30 });
    expect(checked.map((user) => user?.id ?? null)).toEqual(checks.map((user, i) => (i % 3 === 2 ? null : user.id)));
    expect(checked[0]).toEqual({ id: users[0].id, username: users[0].username, email: users[0].email, isStaff: false, isAdmin: false, isVerified: false });
  });
});
