import { and, eq, isNull } from 'drizzle-orm';
import { assignUserLocation } from '../locations/membership.service.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { locations, refreshTokens, users } from '../../models/index.js';
import { AppError, fieldError } from '../../core/errors.js';
import type { RequestContext } from '../../core/context.js';
import type { ProcessedImage } from '../../core/uploads.js';
import type { OperationResult } from '../../core/operation.js';
import { findUserById, findUserByEmail, findUserByUsername } from '../users/users.queries.js';
import { serializeOwnUser } from '../users/users.serializer.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from './passwords.js';
import { recordAccessChange } from './access-changes.js';
import { clearRefreshCookie, issueTokens, refreshCookie, REFRESH_COOKIE, revokeFamily, tokensFor } from './sessions.js';
import { verifyRefreshToken } from './tokens.js';
import { newReferralCode } from './admin-bootstrap.js';
import { accountBudgetKey, rememberLoginClient } from './login-clients.js';
import { endDeviceAtLogout } from '../push/push.service.js';

export interface RegisterInput {
  email: string;
  username: string;
  display_name: string;
  password: string;
  bio?: string;
  profile_picture?: ProcessedImage;
  location?: string;
  referrer_code?: string;
  ref_source?: string;
  ref_medium?: string;
  ref_campaign?: string;
}

const UNIQUE_VIOLATION = '23505';

/**
 * `byAdministrator`: an administrator creates the account (`admin.users_create`): the answer carries the new
 * account's tokens but sets no cookie, and the administrator's address does not become a known device of it.
 */
export async function register(input: RegisterInput, ctx: RequestContext, opts: { byAdministrator?: boolean } = {}): Promise<OperationResult> {
  const errors: Record<string, string[]> = {};
  if (await findUserByEmail(input.email)) errors.email = ['user with this email already exists.'];
  if (await findUserByUsername(input.username)) errors.username = ['A user with that username already exists.'];
  if (input.location) {
    const [loc] = await platform.db.select({ id: locations.id }).from(locations).where(eq(locations.id, input.location)).limit(1);
    if (!loc) errors.location = [`Invalid pk "${input.location}" - object does not exist.`];
  }
  if (Object.keys(errors).length) throw new AppError(400, errors);

  // An unknown referrer code is ignored, as the contract says: the account is created without it.
  const referrer = input.referrer_code
    ? (await platform.db.select({ id: users.id }).from(users).where(eq(users.referralCode, input.referrer_code.trim().toUpperCase())).limit(1))[0]
    : undefined;
  const passwordHash = await hashPassword(input.password);
  const picture = input.profile_picture
    ? await platform.storage.put('profile_pictures', input.profile_picture)
    : null;

  let userId: string;
  let tokens: { access_token: string; refresh_token: string };
  try {
    ({ userId, tokens } = await transaction(platform.db, async (tx, events) => {
      const [row] = await tx
        .insert(users)
        .values({
          email: input.email,
          username: input.username,
          displayName: input.display_name,
          passwordHash,
          bio: input.bio ?? '',
          profilePicture: picture,
          referralCode: newReferralCode(),
          referrerCode: referrer ? input.referrer_code!.trim().toUpperCase() : null,
          referredById: referrer?.id ?? null,
          refSource: input.ref_source ?? null,
          refMedium: input.ref_medium ?? null,
          refCampaign: input.ref_campaign ?? null,
        })
        .returning({ id: users.id });
      if (input.location) await assignUserLocation(tx, events, row.id, input.location);
      const { access_token, refresh_token } = await issueTokens(tx, row.id);
      return { userId: row.id, tokens: { access_token, refresh_token } };
    }));
  } catch (err) {
    if (picture) await platform.storage.delete(picture).catch(() => undefined);
    // Two registrations racing for the same name: the unique index decides, the loser gets the field error.
    if ((err as { code?: string }).code === UNIQUE_VIOLATION || (err as { cause?: { code?: string } }).cause?.code === UNIQUE_VIOLATION) {
      const detail = String((err as { detail?: string; cause?: { detail?: string } }).detail ?? (err as { cause?: { detail?: string } }).cause?.detail ?? '');
      throw detail.includes('email') ? fieldError('email', 'user with this email already exists.') : fieldError('username', 'A user with that username already exists.');
    }
    throw err;
  }
  const user = await findUserById(userId);
  if (opts.byAdministrator) return { status: 201, body: { ...tokens, user: serializeOwnUser(user!, ctx) } };
  // The device that created the account is the owner's: it gets its own login budget (login-clients.ts).
  await rememberLoginClient(userId, ctx.ip);
  return { status: 201, body: { ...tokens, user: serializeOwnUser(user!, ctx) }, cookies: [refreshCookie(tokens.refresh_token)] };
}

/** The account a login names: an email (any case) first, then a username (any case). */
async function findLoginAccount(identifier: string) {
  return identifier.includes('@') ? ((await findUserByEmail(identifier)) ?? (await findUserByUsername(identifier))) : await findUserByUsername(identifier);
}

export async function login(input: { username: string; password: string }, ctx: RequestContext): Promise<OperationResult> {
  const row = await findLoginAccount(input.username.trim());
  const valid = row ? await verifyPassword(row.passwordHash, input.password) : await verifyPassword(await dummyPasswordHash(), input.password);
  if (!row || !valid || !row.isActive) throw new AppError(401, { error: 'Invalid credentials' });
  // The budget this attempt was counted against is whole again; the client is known from now on.
  await platform.rateLimits.reset('accounts.login:account', await accountBudgetKey(row.id, ctx.ip));
  await rememberLoginClient(row.id, ctx.ip);
  const { access_token, refresh_token } = await issueTokens(platform.db, row.id);
  const user = await findUserById(row.id);
  return { status: 200, body: { access_token, refresh_token, user: serializeOwnUser(user!, ctx) }, cookies: [refreshCookie(refresh_token)] };
}

/**
 * What the per-account login budget counts: the account itself, so that its username and its email
 * share one budget; a name that matches no account is counted as that name. A client (account, address)
 * that logged in successfully within KNOWN_CLIENT_DAYS has a budget of its own, so a stranger who spends
 * the account's budget locks out other strangers, not the owner's known devices.
 */
export async function loginAccountKey(input: Record<string, unknown>, ctx: RequestContext): Promise<string | null> {
  const identifier = typeof input.username === 'string' ? input.username.trim() : '';
  if (!identifier) return null;
  const row = await findLoginAccount(identifier);
  return row ? accountBudgetKey(row.id, ctx.ip) : `name:${identifier.toLowerCase()}`;
}
const invalidRefresh = () => new AppError(401, { error: 'Invalid or blacklisted refresh token' });

/**
 * Rotation: the presented token is blacklisted and a new one of the same family issued. The presented
 * row is locked, so two refreshes with the same token are decided one after the other: a copy presented
 * again within REFRESH_REUSE_GRACE_SECONDS of its rotation (two tabs of one browser refreshing at once)
 * gets the same successor; later, or once that successor has itself been used, it is reuse: someone
 * holds a copy, and the whole session ends.
 */
export async function refresh(input: { refresh?: string }, ctx: RequestContext): Promise<OperationResult> {
  const presented = input.refresh ?? ctx.cookies[REFRESH_COOKIE];
  if (!presented) throw new AppError(401, { error: 'Refresh token missing' });
  const claims = verifyRefreshToken(presented);
  if (!claims) throw invalidRefresh();
  const outcome = await transaction(platform.db, async (tx, events) => {
    // The user first: deleting a user also deletes its tokens, which would otherwise read as "blacklisted".
    const [user] = await tx.select({ id: users.id, isActive: users.isActive }).from(users).where(eq(users.id, claims.sub)).limit(1);
    if (!user || !user.isActive) return { kind: 'no-user' as const };
    const [known] = await tx.select().from(refreshTokens).where(eq(refreshTokens.jti, claims.jti)).limit(1).for('update');
    if (!known || known.userId !== claims.sub) return { kind: 'invalid' as const };
    if (!known.revokedAt) {
      const tokens = await issueTokens(tx, user.id, known.familyId);
      await tx.update(refreshTokens).set({ revokedAt: new Date(), replacedBy: tokens.jti }).where(eq(refreshTokens.jti, known.jti));
      return { kind: 'ok' as const, tokens };
    }
    const graceMs = platform.config.REFRESH_REUSE_GRACE_SECONDS * 1000;
    if (known.replacedBy && Date.now() - known.revokedAt.getTime() <= graceMs) {
      const [successor] = await tx
        .select({ jti: refreshTokens.jti })
        .from(refreshTokens)
        .where(and(eq(refreshTokens.jti, known.replacedBy), isNull(refreshTokens.revokedAt)))
        .limit(1);
      if (successor) return { kind: 'ok' as const, tokens: tokensFor(user.id, successor.jti, known.familyId) };
    }
    await revokeFamily(tx, known.familyId);
    await recordAccessChange(tx, events, user.id);
    return { kind: 'reused' as const };
  });
  if (outcome.kind === 'no-user') throw new AppError(401, { error: 'User not found' });
  if (outcome.kind !== 'ok') throw invalidRefresh();
  const tokens = { access_token: outcome.tokens.access_token, refresh_token: outcome.tokens.refresh_token };
  return { status: 200, body: tokens, cookies: [refreshCookie(tokens.refresh_token)] };
}

/**
 * Logout ends this session only (the presented refresh token's family, and through sid its access
 * tokens): the user's other devices stay signed in. A socket that calls it becomes anonymous (endsSession).
 */
export async function logout(input: { refresh?: string; push_subscription_id?: string }, ctx: RequestContext): Promise<OperationResult> {
  const presented = input.refresh ?? ctx.cookies[REFRESH_COOKIE];
  const claims = presented ? verifyRefreshToken(presented) : null;
  let deviceEnded = false;
  if (claims) {
    await transaction(platform.db, async (tx, events) => {
      const [known] = await tx.select({ userId: refreshTokens.userId, familyId: refreshTokens.familyId }).from(refreshTokens).where(eq(refreshTokens.jti, claims.jti)).limit(1);
      if (!known || known.userId !== claims.sub) return;
      await revokeFamily(tx, known.familyId);
      await recordAccessChange(tx, events, known.userId);
      // The device logging out gets no more pushes (DESIGN.md section 10): only one of the person's own.
      if (input.push_subscription_id) await endDeviceAtLogout(tx, known.userId, input.push_subscription_id);
      deviceEnded = true;
    });
  }
  // No refresh token (a client holding only its access token): the device still ends, when the caller is known.
  if (!deviceEnded && input.push_subscription_id && ctx.user) await endDeviceAtLogout(platform.db, ctx.user.id, input.push_subscription_id);
  return { status: 200, body: { message: 'Successfully logged out.' }, cookies: [clearRefreshCookie()], endsSession: true };
}
