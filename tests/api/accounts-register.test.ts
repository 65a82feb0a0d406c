import jwt from 'jsonwebtoken';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, callerFrom, normalised, refreshCookieHeader } from '../helpers/caller.js';
import { sql } from '../helpers/sql.js';
import { imageShape } from '../helpers/images.js';

/** Contract: Accounts (register), Authentication 1, 2, 6; DESIGN.md section 8 (token claims). */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

// A real 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

const registration = (overrides: Record<string, unknown> = {}) => {
  const username = unique('reg');
  return { email: `${username}@example.test`, username, display_name: `Reg ${username}`, password: 'correct-horse-battery', ...overrides };
};

const USER_FIELDS = [
  'id', 'email', 'username', 'display_name', 'is_verified', 'bio', 'profile_picture', 'website', 'relationship_status',
  'banner', 'location', 'store', 'owned_communities', 'created_at', 'updated_at', 'discoverable',
].sort();

describe('POST /api/auth/register/', () => {
  test('when registering with JSON, then 201 with both tokens and the contract user object', async () => {
    const caller = callerFrom(app);
    const input = registration({ bio: 'Hello there' });
    const res = await caller.rest('POST', '/api/auth/register/', { body: input });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'refresh_token', 'user']);
    expect(Object.keys(res.body.user).sort()).toEqual(USER_FIELDS);
    expect(res.body.user).toMatchObject({
      email: input.email,
      username: input.username,
      display_name: input.display_name,
      bio: 'Hello there',
      is_verified: false,
      profile_picture: null,
      location: null,
      store: null,
      owned_communities: [],
    });
    // The access token authorises requests as the new user.
    const profile = await caller.rest('GET', '/api/users/profile/', { token: res.body.access_token });
    expect(profile).toMatchObject({ status: 200, body: { id: res.body.user.id, username: input.username } });
    // The password is stored hashed, never as given.
    const [row] = await sql('SELECT password_hash FROM users WHERE id = $1', [res.body.user.id]);
    expect(row.password_hash).not.toContain(input.password);
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    // At the cost the app is configured with (test-app.ts makes it cheap; the defaults are checked below).
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=1024,p=4,t=1\$/);
  });

  test('when the username is a fixed path of the users area, then 400: /api/users/{username} could never show that user', async () => {
    // And the dot segments, which a URL parser removes from any path, encoded or not.
    for (const username of ['profile', 'Search', 'nearby-users', 'update-location', '.', '..']) {
      const res = await callerFrom(app).rest('POST', '/api/auth/register/', { body: registration({ username }) });
      expect(res).toMatchObject({ status: 400, body: { username: ['This username is reserved.'] } });
    }
  });

  test('when tokens are issued, then they are HS256 JWTs with sub, type, jti, iat, exp and lifetimes of 1 hour and 30 days', async () => {
    const user = await aUserFrom(callerFrom(app));
    const access = jwt.decode(user.token, { complete: true })!;
    const refresh = jwt.decode(user.refresh, { complete: true })!;
    expect(access.header.alg).toBe('HS256');
    expect(refresh.header.alg).toBe('HS256');
    const a = access.payload as jwt.JwtPayload;
    const r = refresh.payload as jwt.JwtPayload;
    expect(a).toMatchObject({ sub: user.id, type: 'access', jti: expect.any(String), iat: expect.any(Number) });
    expect(r).toMatchObject({ sub: user.id, type: 'refresh', jti: expect.any(String), iat: expect.any(Number) });
    expect(a.exp! - a.iat!).toBe(3600);
    expect(r.exp! - r.iat!).toBe(30 * 24 * 3600);
  });

  test('when registering, then the refresh_token cookie is set HttpOnly, Secure, SameSite=Lax for 30 days', async () => {
    const res = await callerFrom(app).rest('POST', '/api/auth/register/', { body: registration() });
    expect(res.status).toBe(201);
    const cookie = refreshCookieHeader(res.headers);
    expect(cookie).toBeDefined();
    expect(cookie).toContain(`refresh_token=${res.body.refresh_token};`);
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*Secure/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
    expect(cookie).toMatch(/;\s*Path=\//i);
    expect(cookie).toMatch(/;\s*Max-Age=2592000\b/i);
    const expires = new Date(/Expires=([^;]+)/i.exec(cookie!)![1]).getTime();
    expect(Math.abs(expires - (Date.now() + 30 * 24 * 3600 * 1000))).toBeLessThan(60_000);
  });

  test('when registering with multipart and a PNG profile_picture, then the picture is an absolute URL serving that image, written anew', async () => {
    const input = registration();
    const res = await app
      .http()
      .post('/api/auth/register/')
      .set('X-Forwarded-For', callerFrom(app).ip)
      .field('email', input.email)
      .field('username', input.username)
      .field('display_name', input.display_name)
      .field('password', input.password)
      .field('bio', 'multipart bio')
      .attach('profile_picture', PNG, { filename: 'me.png', contentType: 'image/png' });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ username: input.username, bio: 'multipart bio' });
    const url: string = res.body.user.profile_picture;
    expect(url).toMatch(/^https?:\/\/[^/]+\/.*profile_pictures\/[0-9a-f]{32}\.1x1\.[\w-]+\.png$/);
    const fetched = await fetch(url);
    expect(fetched.status).toBe(200);
    expect(await imageShape(Buffer.from(await fetched.arrayBuffer()))).toEqual(await imageShape(PNG));
    expect(refreshCookieHeader(res.headers)).toContain(`refresh_token=${res.body.refresh_token};`);
  });

  test('when the profile_picture is not an image, then 400 with a field error and no account is created', async () => {
    const input = registration();
    const res = await app
      .http()
      .post('/api/auth/register/')
      .set('X-Forwarded-For', callerFrom(app).ip)
      .field('email', input.email)
      .field('username', input.username)
      .field('display_name', input.display_name)
      .field('password', input.password)
      .attach('profile_picture', Buffer.from('#!/bin/sh\necho not an image\n'), { filename: 'me.png', contentType: 'image/png' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ profile_picture: ['Upload a valid image. The file you uploaded was either not an image or a corrupted image.'] });
    expect(await sql('SELECT id FROM users WHERE username = $1', [input.username])).toHaveLength(0);
  });

  test('when the referrer_code matches no user, then it is ignored silently and the account is created', async () => {
    const input = registration({ referrer_code: 'NO-SUCH-CODE-' + unique() });
    const res = await callerFrom(app).rest('POST', '/api/auth/register/', { body: input });
    expect(res.status).toBe(201);
    const [row] = await sql('SELECT referrer_code, referred_by_id FROM users WHERE id = $1', [res.body.user.id]);
    expect(row).toEqual({ referrer_code: null, referred_by_id: null });
    // Nor is a code of a shape no code has an error.
    for (const referrer_code of ['X'.repeat(300), 12345, '   ']) {
      const odd = await callerFrom(app).rest('POST', '/api/auth/register/', { body: registration({ referrer_code }) });
      expect(odd.status).toBe(201);
    }
  });

  test("when the referrer_code is another user's referral code, then the referral is recorded", async () => {
    const caller = callerFrom(app);
    const referrer = await aUserFrom(caller);
    const [{ referral_code: code }] = await sql('SELECT referral_code FROM users WHERE id = $1', [referrer.id]);
    expect(code).toMatch(/^[A-Z0-9]+$/);
    const res = await caller.rest('POST', '/api/auth/register/', { body: registration({ referrer_code: code }) });
    expect(res.status).toBe(201);
    const [row] = await sql('SELECT referrer_code, referred_by_id, referral_code FROM users WHERE id = $1', [res.body.user.id]);
    expect(row.referrer_code).toBe(code);
    expect(row.referred_by_id).toBe(referrer.id);
    // The new user gets a referral code of its own.
    expect(row.referral_code).toMatch(/^[A-Z0-9]+$/);
    expect(row.referral_code).not.toBe(code);
  });

  test('when ref_source, ref_medium and ref_campaign are given, then they are kept on the account', async () => {
    const res = await callerFrom(app).rest('POST', '/api/auth/register/', {
      body: registration({ ref_source: 'newsletter', ref_medium: 'email', ref_campaign: 'spring-launch' }),
    });
    expect(res.status).toBe(201);
    const [row] = await sql('SELECT ref_source, ref_medium, ref_campaign FROM users WHERE id = $1', [res.body.user.id]);
    expect(row).toEqual({ ref_source: 'newsletter', ref_medium: 'email', ref_campaign: 'spring-launch' });
  });

  test('when the username or the email is taken in another letter case, then 400 with a field error for each', async () => {
    const caller = callerFrom(app);
    const existing = await aUserFrom(caller);
    const res = await caller.rest('POST', '/api/auth/register/', {
      body: registration({ username: existing.username.toUpperCase(), email: existing.email.toUpperCase() }),
    });
    expect(res).toMatchObject({
      status: 400,
      body: { username: ['A user with that username already exists.'], email: ['user with this email already exists.'] },
    });
    const onlyEmail = await caller.rest('POST', '/api/auth/register/', { body: registration({ email: existing.email.toUpperCase() }) });
    expect(onlyEmail).toEqual({ status: 400, body: { email: ['user with this email already exists.'] }, headers: expect.anything() });
  });

  test('when the password has fewer than 8 characters, then 400 with a password field error', async () => {
    const input = registration({ password: 'short12' });
    const res = await callerFrom(app).rest('POST', '/api/auth/register/', { body: input });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ password: ['This password is too short. It must contain at least 8 characters.'] });
    expect(await sql('SELECT id FROM users WHERE username = $1', [input.username])).toHaveLength(0);
    // Exactly 8 is enough.
    const eight = await callerFrom(app).rest('POST', '/api/auth/register/', { body: registration({ password: '12345678' }) });
    expect(eight.status).toBe(201);
  });

  test('when required fields are missing or the email is malformed, then 400 names each field', async () => {
    const res = await callerFrom(app).rest('POST', '/api/auth/register/', { body: { email: 'not-an-email' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      email: ['Enter a valid email address.'],
      username: ['This field is required.'],
      display_name: ['This field is required.'],
      password: ['This field is required.'],
    });
  });

  test('when is_verified is sent at registration, then it is ignored and the account is unverified', async () => {
    const caller = callerFrom(app);
    const json = await caller.rest('POST', '/api/auth/register/', { body: registration({ is_verified: true }) });
    expect(json.status).toBe(201);
    expect(json.body.user.is_verified).toBe(false);
    const input = registration();
    const multipart = await app
      .http()
      .post('/api/auth/register/')
      .set('X-Forwarded-For', caller.ip)
      .field('email', input.email)
      .field('username', input.username)
      .field('display_name', input.display_name)
      .field('password', input.password)
      .field('is_verified', 'true');
    expect(multipart.status).toBe(201);
    expect(multipart.body.user.is_verified).toBe(false);
    const rows = await sql('SELECT is_verified, is_staff, is_admin FROM users WHERE id = ANY($1::uuid[])', [[json.body.user.id, multipart.body.user.id]]);
    expect(rows).toEqual([
      { is_verified: false, is_staff: false, is_admin: false },
      { is_verified: false, is_staff: false, is_admin: false },
    ]);
  });

  test('when a location UUID is given, then the user is attached to it; an unknown or malformed one is a field error', async () => {
    const name = unique('Regville');
    const [loc] = await sql('INSERT INTO locations (name, neighbourhood) VALUES ($1, $1) RETURNING id', [name]);
    const caller = callerFrom(app);
    const res = await caller.rest('POST', '/api/auth/register/', { body: registration({ location: loc.id }) });
    expect(res.status).toBe(201);
    expect(res.body.user.location).toEqual({ id: loc.id, name });

    const unknownId = '7d1e3a0c-3f6b-4b8e-9a57-3c1d2e4f5a6b';
    const unknown = await caller.rest('POST', '/api/auth/register/', { body: registration({ location: unknownId }) });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ location: [`Invalid pk "${unknownId}" - object does not exist.`] });

    const malformed = await caller.rest('POST', '/api/auth/register/', { body: registration({ location: 'not-a-uuid' }) });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ location: ['Invalid UUID format.'] });
  });

  test('when registering over the socket, then status and body are those of REST (tokens, ids, names aside)', async () => {
    const caller = callerFrom(app);
    const overREST = registration({ bio: 'same bio' });
    const overSocket = registration({ bio: 'same bio' });
    const rest = await caller.rest('POST', '/api/auth/register/', { body: overREST });
    const socket = await caller.emit('accounts.register', overSocket);
    expect(rest.status).toBe(201);
    expect(socket.status).toBe(201);
    expect(socket.body.user.id).not.toBe(rest.body.user.id);
    expect(normalised(socket.body, [overSocket.username])).toEqual(normalised(rest.body, [overREST.username]));

    // Errors are identical too.
    const duplicateRest = await caller.rest('POST', '/api/auth/register/', { body: { ...overREST, password: 'short' } });
    const duplicateSocket = await caller.emit('accounts.register', { ...overREST, password: 'short' });
    expect(duplicateRest.status).toBe(400);
    expect(duplicateRest.body).toEqual({ password: ['This password is too short. It must contain at least 8 characters.'] });
    expect(duplicateSocket).toEqual({ status: duplicateRest.status, body: duplicateRest.body });

    const takenRest = await caller.rest('POST', '/api/auth/register/', { body: overSocket });
    const takenSocket = await caller.emit('accounts.register', overSocket);
    expect(takenRest.status).toBe(400);
    expect(takenSocket).toEqual({ status: takenRest.status, body: takenRest.body });
  });
});
