import crypto from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import type { DbOrTx } from '../../platform/db.js';
import { refreshTokens, users } from '../../models/index.js';
import type { CookieInstruction } from '../../core/operation.js';
import type { PendingEvents } from '../../core/events.js';
import { signAccessToken, signRefreshToken } from './tokens.js';
import { recordAccessChange } from './access-changes.js';

/**
 * A session is a family of refresh tokens: the one issued at login and each one that replaced it.
 * Every refresh token is recorded so that it can be used once and recognised if used again.
 */
export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
}

export const REFRESH_COOKIE = 'refresh_token';

/** Records a new refresh token of `familyId` (a new session by default); `jti` is the recorded token's id. */
export async function issueTokens(db: DbOrTx, userId: string, familyId: string = crypto.randomUUID()): Promise<IssuedTokens & { jti: string }> {
  const jti = crypto.randomUUID();
  await db.insert(refreshTokens).values({
    jti,
    userId,
    familyId,
    expiresAt: new Date(Date.now() + platform.config.REFRESH_TOKEN_LIFETIME_SECONDS * 1000),
  });
  return { jti, ...tokensFor(userId, jti, familyId) };
}

/** The token pair for an already recorded refresh token (its access token names the session as sid). */
export const tokensFor = (userId: string, jti: string, familyId: string): IssuedTokens => ({
  access_token: signAccessToken(userId, familyId),
  refresh_token: signRefreshToken(userId, jti, familyId),
});

export const refreshCookie = (token: string): CookieInstruction => ({
  name: REFRESH_COOKIE,
  value: token,
  maxAgeSeconds: platform.config.REFRESH_TOKEN_LIFETIME_SECONDS,
});

export const clearRefreshCookie = (): CookieInstruction => ({ name: REFRESH_COOKIE, value: null });

/** Blacklist one token. Returns false if it was already blacklisted (or unknown). */
export async function revokeToken(db: DbOrTx, jti: string): Promise<boolean> {
  const rows = await db
    .update(refreshTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(refreshTokens.jti, jti), isNull(refreshTokens.revokedAt)))
    .returning({ jti: refreshTokens.jti });
  return rows.length > 0;
}

/** Ends one session: its refresh tokens, and (through sid) its access tokens, stop working. */
export async function revokeFamily(db: DbOrTx, familyId: string): Promise<void> {
  await db.update(refreshTokens).set({ revokedAt: new Date() }).where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
}

export async function revokeAllSessions(db: DbOrTx, userId: string): Promise<void> {
  await db.update(refreshTokens).set({ revokedAt: new Date() }).where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)));
}

/**
 * Ends every session of a user (password reset, deactivation): refresh tokens are revoked and access
 * tokens issued until now are refused, including those of a later reactivated account. Every node forgets what
 * it cached about the caller (recordAccessChange).
 */
export async function endAllSessions(db: DbOrTx, events: PendingEvents, userId: string): Promise<void> {
  await db.update(users).set({ tokensValidAfter: new Date() }).where(eq(users.id, userId));
  await revokeAllSessions(db, userId);
  await recordAccessChange(db, events, userId);
}
