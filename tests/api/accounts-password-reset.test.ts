import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUserFrom, callerFrom, type Caller } from '../helpers/caller.js';
import { startSmtpCapture, type SmtpCapture } from '../helpers/smtp-capture.js';
import { sql } from '../helpers/sql.js';
import type { TestUser } from '../builders/users.js';

/**
 * Contract: Accounts (password reset), Authentication 5, error table rows for reset; DESIGN.md 8 (400s).
 * The code is read from mail delivered to a real SMTP server.
 */
let smtp: SmtpCapture;
let app: TestApp;
beforeAll(async () => {
  smtp = await startSmtpCapture();
  app = await startTestApp({ SMTP_URL: smtp.url });
});
afterAll(async () => {
  await app.stop();
  await smtp.stop();
});

const SENT = { detail: 'OTP sent to your email.' };
const DONE = { detail: 'Password has been reset successfully.' };

const requestCode = (caller: Caller, email: string) => caller.rest('POST', '/api/auth/password-reset/request/', { body: { email } });
const confirm = (caller: Caller, email: string, otp: string, new_password = 'a-brand-new-password') =>
  caller.rest('POST', '/api/auth/password-reset/confirm/', { body: { email, otp, new_password } });

/** The code in the latest mail to `email`. */
function latestCode(email: string): string {
  const mails = smtp.mailsTo(email);
  expect(mails.length).toBeGreaterThan(0);
  const code = /\b(\d{6})\b/.exec(mails[mails.length - 1].body)?.[1];
  expect(code).toBeDefined();
  return code!;
}

/** Any six digits other than `code`. */
const otherThan = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

async function userWithCode(caller: Caller): Promise<{ user: TestUser; code: string }> {
  const user = await aUserFrom(caller);
  expect(await requestCode(caller, user.email)).toMatchObject({ status: 200, body: SENT });
  return { user, code: latestCode(user.email) };
}

describe('password reset', () => {
  test('when a code is requested, then a 6-digit code is mailed, and confirming it sets the new password', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    const res = await requestCode(caller, user.email.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toEqual(SENT);
    const mails = smtp.mailsTo(user.email);
    expect(mails).toHaveLength(1);
    expect(mails[0].raw).toMatch(/^Subject: .+/m);
    const code = latestCode(user.email);
    // Only a keyed hash of the code is stored.
    const [row] = await sql('SELECT otp_hash FROM password_resets WHERE user_id = $1', [user.id]);
    expect(row.otp_hash).not.toContain(code);

    const done = await confirm(caller, user.email, code, 'a-brand-new-password');
    expect(done.status).toBe(200);
    expect(done.body).toEqual(DONE);
    const withNew = await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: 'a-brand-new-password' } });
    expect(withNew.status).toBe(200);
    expect(withNew.body.user.id).toBe(user.id);
    const withOld = await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } });
    expect(withOld).toMatchObject({ status: 401, body: { error: 'Invalid credentials' } });
  }, 60_000);

  test('when the email belongs to no user, then 400 {email: [User with this email does not exist.]} and no mail', async () => {
    const caller = callerFrom(app);
    const email = `${unique('ghost')}@example.test`;
    const res = await requestCode(caller, email);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ email: ['User with this email does not exist.'] });
    expect(smtp.mailsTo(email)).toHaveLength(0);
  });

  test('when the code is wrong, then 400 Invalid or expired OTP. and the password is unchanged', async () => {
    const caller = callerFrom(app);
    const { user, code } = await userWithCode(caller);
    const res = await confirm(caller, user.email, otherThan(code));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ['Invalid or expired OTP.'] });
    const login = await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } });
    expect(login.status).toBe(200);
  }, 60_000);

  test('when 5 wrong codes were tried, then even the right code is refused until a new code is requested', async () => {
    const caller = callerFrom(app);
    const { user, code } = await userWithCode(caller);
    for (let i = 0; i < 5; i++) {
      expect(await confirm(caller, user.email, otherThan(code))).toMatchObject({ status: 400, body: { non_field_errors: ['Invalid or expired OTP.'] } });
    }
    const locked = await confirm(caller, user.email, code);
    expect(locked.status).toBe(400);
    expect(locked.body).toEqual({ non_field_errors: ['Too many failed attempts. Please request a new OTP.'] });
    expect((await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: 'a-brand-new-password' } })).status).toBe(401);

    expect((await requestCode(caller, user.email)).status).toBe(200);
    const fresh = latestCode(user.email);
    // The old code was replaced by the new one.
    if (fresh !== code) expect(await confirm(caller, user.email, code)).toMatchObject({ status: 400, body: { non_field_errors: ['Invalid or expired OTP.'] } });
    expect(await confirm(caller, user.email, fresh)).toMatchObject({ status: 200, body: DONE });
  }, 60_000);

  test('when 4 wrong codes were tried, then the right code still works', async () => {
    const caller = callerFrom(app);
    const { user, code } = await userWithCode(caller);
    for (let i = 0; i < 4; i++) expect((await confirm(caller, user.email, otherThan(code))).status).toBe(400);
    expect(await confirm(caller, user.email, code)).toMatchObject({ status: 200, body: DONE });
  }, 60_000);

  test('when a code was used once, then using it again is refused', async () => {
    const caller = callerFrom(app);
    const { user, code } = await userWithCode(caller);
    expect(await confirm(caller, user.email, code, 'first-new-password')).toMatchObject({ status: 200, body: DONE });
    const again = await confirm(caller, user.email, code, 'second-new-password');
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ non_field_errors: ['OTP has expired or is invalid.'] });
    expect((await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: 'first-new-password' } })).status).toBe(200);
  }, 60_000);

  test('when the code has expired, then it is refused with OTP has expired or is invalid.', async () => {
    const caller = callerFrom(app);
    const { user, code } = await userWithCode(caller);
    // A fresh code expires in 10 minutes.
    const [fresh] = await sql(`SELECT expires_at > now() + interval '9 minutes' AND expires_at <= now() + interval '10 minutes 5 seconds' AS ok FROM password_resets WHERE user_id = $1`, [user.id]);
    expect(fresh.ok).toBe(true);
    await sql(`UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [user.id]);
    const res = await confirm(caller, user.email, code);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ['OTP has expired or is invalid.'] });
  }, 60_000);

  test('when no code was ever requested, then confirm answers OTP has expired or is invalid.', async () => {
    const caller = callerFrom(app);
    const user = await aUserFrom(caller);
    expect(await confirm(caller, user.email, '123456')).toMatchObject({ status: 400, body: { non_field_errors: ['OTP has expired or is invalid.'] } });
  });

  test('when confirming for an unknown email, then 400 Invalid user.', async () => {
    const res = await confirm(callerFrom(app), `${unique('ghost')}@example.test`, '123456');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ['Invalid user.'] });
  });

  test('when the input is malformed, then 400 field errors (code of 6 digits, password of 8 characters)', async () => {
    const caller = callerFrom(app);
    const res = await caller.rest('POST', '/api/auth/password-reset/confirm/', { body: { email: 'nope', otp: '12ab', new_password: 'short' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      email: ['Enter a valid email address.'],
      otp: ['Enter the 6-digit code.'],
      new_password: ['This password is too short. It must contain at least 8 characters.'],
    });
    const request = await caller.rest('POST', '/api/auth/password-reset/request/', { body: {} });
    expect(request).toMatchObject({ status: 400, body: { email: ['This field is required.'] } });
  });

  test('when the password is reset, then the refresh tokens issued before stop working', async () => {
    const caller = callerFrom(app);
    const { user, code } = await userWithCode(caller);
    const otherDevice = (await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: user.password } })).body.refresh_token;
    expect(await confirm(caller, user.email, code)).toMatchObject({ status: 200, body: DONE });
    for (const token of [user.refresh, otherDevice]) {
      expect(await caller.rest('POST', '/api/auth/refresh/', { body: { refresh: token } })).toMatchObject({
        status: 401,
        body: { error: 'Invalid or blacklisted refresh token' },
      });
    }
  }, 60_000);

  test('when the password is reset, then access tokens issued before are refused on REST and at the socket handshake; a new login works', async () => {
    const caller = callerFrom(app);
    const { user, code } = await userWithCode(caller);
    expect((await caller.rest('GET', '/api/users/profile/', { token: user.token })).status).toBe(200);
    expect(await confirm(caller, user.email, code, 'the-password-after-reset')).toMatchObject({ status: 200, body: DONE });
    expect(await caller.rest('GET', '/api/users/profile/', { token: user.token })).toMatchObject({ status: 401, body: { detail: 'Given token not valid for any token type' } });
    await expect(app.socket(user.token)).rejects.toThrow('unauthorized');
    const again = await caller.rest('POST', '/api/auth/login/', { body: { username: user.username, password: 'the-password-after-reset' } });
    expect((await caller.rest('GET', '/api/users/profile/', { token: again.body.access_token })).status).toBe(200);
  }, 60_000);

  test('when the reset runs over the socket, then status and body are those of REST, errors included', async () => {
    const caller = callerFrom(app);
    const restUser = await aUserFrom(caller);
    const socketUser = await aUserFrom(caller);
    const restRequest = await requestCode(caller, restUser.email);
    const socketRequest = await caller.emit('accounts.password_reset_request', { email: socketUser.email });
    expect(socketRequest).toEqual({ status: restRequest.status, body: restRequest.body });
    expect(socketRequest).toEqual({ status: 200, body: SENT });

    const ghost = `${unique('ghost')}@example.test`;
    const ghostRest = await requestCode(caller, ghost);
    const ghostSocket = await caller.emit('accounts.password_reset_request', { email: ghost });
    expect(ghostSocket).toEqual({ status: ghostRest.status, body: ghostRest.body });

    const restCode = latestCode(restUser.email);
    const socketCode = latestCode(socketUser.email);
    const wrongRest = await confirm(caller, restUser.email, otherThan(restCode));
    const wrongSocket = await caller.emit('accounts.password_reset_confirm', { email: socketUser.email, otp: otherThan(socketCode), new_password: 'a-brand-new-password' });
    expect(wrongSocket).toEqual({ status: wrongRest.status, body: wrongRest.body });

    const unknownRest = await confirm(caller, ghost, '123456');
    const unknownSocket = await caller.emit('accounts.password_reset_confirm', { email: ghost, otp: '123456', new_password: 'a-brand-new-password' });
    expect(unknownSocket).toEqual({ status: unknownRest.status, body: unknownRest.body });

    const doneRest = await confirm(caller, restUser.email, restCode);
    const doneSocket = await caller.emit('accounts.password_reset_confirm', { email: socketUser.email, otp: socketCode, new_password: 'a-brand-new-password' });
    expect(doneSocket).toEqual({ status: doneRest.status, body: doneRest.body });
    expect(doneSocket).toEqual({ status: 200, body: DONE });
    const login = await caller.emit('accounts.login', { username: socketUser.username, password: 'a-brand-new-password' });
    expect(login.status).toBe(200);
  }, 60_000);
});
