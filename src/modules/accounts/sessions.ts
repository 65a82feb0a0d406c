import crypto from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import type { DbOrTx } from '../../platform/db.js';
import { refreshTokens } from '../../models/index.js';
import type { CookieInstruction } from '../../core/operation.js';
import { signAccessToken, signRefreshToken } from './tokens.js';

/**
 * A session is a family of refresh tokens: the one issued at login and each one that replaced it.
 * Every refresh token is recorded so that it can be used once and recognised if used again.
 */
export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
}

export const REFRESH_COOKIE = 'refresh_token';

export async function issueTokens(db: DbOrTx, userId: string, familyId: string = crypto.randomUUID()): Promise<IssuedTokens> {
  const jti = crypto.randomUUID();
  await db.insert(refreshTokens).values({
    jti,
    userId,
    familyId,
    expiresAt: new Date(Date.now() + platform.config.REFRESH_TOKEN_LIFETIME_SECONDS * 1000),
  });
  return { access_token: signAccessToken(userId), refresh_token: signRefreshToken(userId, jti, familyId) };
}

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

export async function revokeFamily(db: DbOrTx, familyId: string): Promise<void> {
  await db.update(refreshTokens).set({ revokedAt: new Date() }).where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
}

export async function revokeAllSessions(db: DbOrTx, userId: string): Promise<void> {
  await db.update(refreshTokens).set({ revokedAt: new Date() }).where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)));
}
