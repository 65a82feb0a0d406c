import { z } from 'zod';
import { defineOperation, ok } from '../../core/operation.js';
import { zOptionalText, zUuid } from '../../core/validation.js';
import { imageField, zImageFile } from '../../core/uploads.js';
import { login, loginAccountKey, logout, refresh, register } from './accounts.service.js';
import { confirmPasswordReset, requestPasswordReset, resetAccountKey } from './password-reset.service.js';
import { zUserBody } from '../users/users.serializer.js';

/** What register, login and refresh answer (the refresh token is also set as a cookie). */
const zTokenPair = z.object({ access_token: z.string(), refresh_token: z.string() }).meta({ id: 'TokenPair' });
const zSession = zTokenPair.extend({ user: zUserBody }).meta({ id: 'Session' });

/** Names that `/api/users/{username}` could never reach, because a fixed path of the users area has them. */
/**
 * Names a profile path (`/api/users/{username}/`) could not address: the other paths under /api/users/, and the dot
 * segments, which every URL parser (WHATWG, so browsers, fetch and our client) removes from a path, encoded or not.
 */
const RESERVED_USERNAMES = new Set(['profile', 'search', 'nearby-users', 'update-location', '.', '..']);

const zPassword = () => z.string().min(8, 'This password is too short. It must contain at least 8 characters.').max(128, 'Ensure this field has no more than 128 characters.');
const zEmail = () => z.string().trim().max(254, 'Ensure this field has no more than 254 characters.').pipe(z.email('Enter a valid email address.'));

const zRegisterInput = z.object({
  email: zEmail(),
  username: z
    .string()
    .trim()
    .min(1, 'This field may not be blank.')
    .max(150, 'Ensure this field has no more than 150 characters.')
    .regex(/^[\w.@+-]+$/, 'Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.')
    .refine((name) => !RESERVED_USERNAMES.has(name.toLowerCase()), 'This username is reserved.'),
  display_name: z.string().trim().min(1, 'This field may not be blank.').max(100, 'Ensure this field has no more than 100 characters.'),
  password: zPassword(),
  bio: zOptionalText(500),
  profile_picture: zImageFile().optional(),
  location: z.preprocess((v) => (v === '' ? undefined : v), zUuid().optional()),
  // Ignored silently when invalid (contract), whatever its shape: a code that cannot exist is not an error either.
  referrer_code: z.preprocess((v) => (typeof v === 'string' && v.trim() && v.trim().length <= 64 ? v.trim() : undefined), z.string().optional()),
  ref_source: zOptionalText(100),
  ref_medium: zOptionalText(100),
  ref_campaign: zOptionalText(100),
});

export const registerOp = defineOperation({
  name: 'accounts.register',
  method: 'POST',
  path: '/api/auth/register/',
  auth: 'public',
  summary: 'Create an account; answers tokens and the user, and sets the refresh cookie',
  tags: ['accounts'],
  files: [imageField('profile_picture')],
  rateLimits: [{ name: 'ip', points: 20, durationSeconds: 3600, key: 'ip' }],
  input: zRegisterInput,
  responses: { 201: zSession },
  handler: (input, ctx) => register(input, ctx),
});

export const loginOp = defineOperation({
  name: 'accounts.login',
  method: 'POST',
  path: '/api/auth/login/',
  auth: 'public',
  summary: 'Log in with a username or an email; answers tokens and the user, and sets the refresh cookie',
  tags: ['accounts'],
  // Per address against spraying, per account against guessing one password (reset on success).
  rateLimits: [
    { name: 'ip', points: 30, durationSeconds: 60, key: 'ip' },
    { name: 'account', points: 10, durationSeconds: 300, key: loginAccountKey },
  ],
  input: z.object({ username: z.string().trim().min(1, 'This field may not be blank.'), password: z.string().min(1, 'This field may not be blank.') }),
  responses: { 200: zSession },
  // Wrong credentials, or an inactive account: `{error: 'Invalid credentials'}`.
  errors: [401],
  handler: (input, ctx) => login(input, ctx),
});

export const refreshOp = defineOperation({
  name: 'accounts.refresh',
  method: 'POST',
  path: '/api/auth/refresh/',
  auth: 'public',
  summary: 'Exchange a refresh token (cookie or {refresh}) for new tokens; the presented one is blacklisted',
  tags: ['accounts'],
  rateLimits: [{ name: 'ip', points: 60, durationSeconds: 60, key: 'ip' }],
  input: z.object({ refresh: z.string().optional() }),
  responses: { 200: zTokenPair },
  // A refresh token missing, invalid, blacklisted or of a user gone.
  errors: [401],
  handler: (input, ctx) => refresh(input, ctx),
});

export const logoutOp = defineOperation({
  name: 'accounts.logout',
  method: 'POST',
  path: '/api/auth/logout/',
  auth: 'public',
  summary: 'Blacklist the refresh token (cookie or {refresh}) and clear the cookie; with push_subscription_id, that device of the caller gets no more pushes',
  tags: ['accounts'],
  input: z.object({ refresh: z.string().optional(), push_subscription_id: zUuid().optional() }),
  responses: { 200: z.object({ message: z.string() }) },
  handler: (input, ctx) => logout(input, ctx),
});

export const passwordResetRequestOp = defineOperation({
  name: 'accounts.password_reset_request',
  method: 'POST',
  path: '/api/auth/password-reset/request/',
  auth: 'public',
  summary: 'Mail a 6-digit reset code, valid for 10 minutes',
  tags: ['accounts'],
  rateLimits: [
    { name: 'ip', points: 20, durationSeconds: 3600, key: 'ip' },
    { name: 'email', points: 5, durationSeconds: 900, key: (input) => (typeof input.email === 'string' ? input.email.trim().toLowerCase() : null) },
  ],
  input: z.object({ email: zEmail() }),
  responses: { 200: z.object({ detail: z.string() }) },
  handler: async (input) => ok(await requestPasswordReset(input.email)),
});

export const passwordResetConfirmOp = defineOperation({
  name: 'accounts.password_reset_confirm',
  method: 'POST',
  path: '/api/auth/password-reset/confirm/',
  auth: 'public',
  summary: 'Set a new password with the mailed code (single use; locked after 5 wrong codes)',
  tags: ['accounts'],
  // Per address, and per account: codes can otherwise be guessed from many addresses (5 tries per code,
  // 5 codes per 15 minutes); 10 an hour leaves the owner room for typos and bounds a guesser to 240 a day.
  rateLimits: [
    { name: 'ip', points: 30, durationSeconds: 900, key: 'ip' },
    { name: 'account', points: 10, durationSeconds: 3600, key: resetAccountKey },
  ],
  input: z.object({
    email: zEmail(),
    otp: z.string().trim().regex(/^\d{6}$/, 'Enter the 6-digit code.'),
    new_password: zPassword(),
  }),
  responses: { 200: z.object({ detail: z.string() }) },
  handler: async (input) => ok(await confirmPasswordReset(input)),
});

/**
 * Administrators create accounts (imports, `npm run demo`) without the per-address registration budget, which
 * exists against anonymous sign-up floods. Same input and rules as register; the answer carries the new account's
 * tokens (the administrator chose its password anyway) but sets no cookie.
 */
export const adminCreateUserOp = defineOperation({
  name: 'admin.users_create',
  method: 'POST',
  path: '/api/admin/users/',
  auth: 'admin',
  summary: 'Create an account as an administrator (no per-address budget); answers its tokens and the user, sets no cookie',
  tags: ['admin', 'accounts'],
  files: [imageField('profile_picture')],
  rateLimits: [{ name: 'user', points: 1000, durationSeconds: 3600, key: 'user' }],
  input: zRegisterInput,
  responses: { 201: zSession },
  handler: (input, ctx) => register(input, ctx, { byAdministrator: true }),
});

export const accountOperations = [registerOp, adminCreateUserOp, loginOp, refreshOp, logoutOp, passwordResetRequestOp, passwordResetConfirmOp];
