import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { eq } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import { users, type UserRow } from '../../models/index.js';
import type { AuthUser } from '../../core/context.js';

/**
 * JWT HS256 tokens (DESIGN.md section 8): claims sub (user id), type (access|refresh), jti, iat, exp;
 * refresh tokens also carry fam, the login they descend from.
 */
export interface AccessClaims {
  sub: string;
  type: 'access';
  jti: string;
  iat: number;
  exp: number;
}

export interface RefreshClaims {
  sub: string;
  type: 'refresh';
  jti: string;
  fam: string;
  iat: number;
  exp: number;
}

export function signAccessToken(userId: string): string {
  return jwt.sign({ type: 'access', jti: crypto.randomUUID() }, platform.jwtSecret, {
    algorithm: 'HS256',
    subject: userId,
    expiresIn: platform.config.ACCESS_TOKEN_LIFETIME_SECONDS,
  });
}

export function signRefreshToken(userId: string, jti: string, familyId: string): string {
  return jwt.sign({ type: 'refresh', jti, fam: familyId }, platform.jwtSecret, {
    algorithm: 'HS256',
    subject: userId,
    expiresIn: platform.config.REFRESH_TOKEN_LIFETIME_SECONDS,
  });
}

export function verifyRefreshToken(token: string): RefreshClaims | null {
  try {
    const claims = jwt.verify(token, platform.jwtSecret, { algorithms: ['HS256'] }) as Partial<RefreshClaims>;
    return claims.type === 'refresh' && claims.sub && claims.jti && claims.fam ? (claims as RefreshClaims) : null;
  } catch {
    return null;
  }
}

export const toAuthUser = (row: Pick<UserRow, 'id' | 'username' | 'email' | 'isStaff' | 'isAdmin' | 'isVerified'>): AuthUser => ({
  id: row.id,
  username: row.username,
  email: row.email,
  isStaff: row.isStaff,
  isAdmin: row.isAdmin,
  isVerified: row.isVerified,
});

/**
 * The caller behind verified access-token claims, or null when the claims are not an access token
 * or the user is gone or deactivated. passport-jwt calls this on REST; the socket handshake calls it
 * through `authenticateAccessToken`: one rule for both.
 */
export async function userFromAccessClaims(claims: Partial<AccessClaims>): Promise<AuthUser | null> {
  if (claims.type !== 'access' || typeof claims.sub !== 'string') return null;
  const [row] = await platform.db.select().from(users).where(eq(users.id, claims.sub)).limit(1);
  return row && row.isActive ? toAuthUser(row) : null;
}

/** Verify an access token and load its user (socket handshake and auth:renew). */
export async function authenticateAccessToken(token: string): Promise<{ user: AuthUser; expiresAt: number; claims: AccessClaims } | null> {
  let claims: AccessClaims;
  try {
    claims = jwt.verify(token, platform.jwtSecret, { algorithms: ['HS256'] }) as AccessClaims;
  } catch {
    return null;
  }
  const user = await userFromAccessClaims(claims);
  return user ? { user, expiresAt: claims.exp * 1000, claims } : null;
}
