import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { platform } from '../../platform/index.js';
import type { UserRow } from '../../models/index.js';
import type { AuthUser } from '../../core/context.js';
import { CallerCache } from './caller-cache.js';
import { byOrdinal, gatheredReads } from '../../platform/gathered-reads.js';

/**
 * JWT HS256 tokens (DESIGN.md section 8): claims sub (user id), type (access|refresh), jti, iat, exp;
 * refresh tokens also carry fam, the login (session) they descend from. Access tokens carry sid, the
 * same session, so that ending one session (logout, reuse detection) ends its access tokens too, and
 * iat_ms, the issue time in milliseconds, since iat's one-second resolution cannot tell a token issued
 * just before an invalidation from one issued just after it in the same second.
 */
export interface AccessClaims {
  sub: string;
  type: 'access';
  jti: string;
  iat: number;
  exp: number;
  iat_ms?: number;
  sid?: string;
}

export interface RefreshClaims {
  sub: string;
  type: 'refresh';
  jti: string;
  fam: string;
  iat: number;
  exp: number;
}

export function signAccessToken(userId: string, sessionId?: string): string {
  const now = Date.now();
  const claims = { type: 'access', jti: crypto.randomUUID(), iat: Math.floor(now / 1000), iat_ms: now, ...(sessionId ? { sid: sessionId } : {}) };
  return jwt.sign(claims, platform.jwtKey, {
    algorithm: 'HS256',
    subject: userId,
    expiresIn: platform.config.ACCESS_TOKEN_LIFETIME_SECONDS,
  });
}

export function signRefreshToken(userId: string, jti: string, familyId: string): string {
  return jwt.sign({ type: 'refresh', jti, fam: familyId }, platform.jwtKey, {
    algorithm: 'HS256',
    subject: userId,
    expiresIn: platform.config.REFRESH_TOKEN_LIFETIME_SECONDS,
  });
}

export function verifyRefreshToken(token: string): RefreshClaims | null {
  try {
    const claims = jwt.verify(token, platform.jwtKey, { algorithms: ['HS256'] }) as Partial<RefreshClaims>;
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The per-request lookup behind every authenticated call on both transports, so it is plain SQL built
 * once (no query building per call), and a named prepared statement where the database allows it (a server:
 * planned once per connection; not PGlite, whose connections share one session). session_live: the token's session (sid) still has an
 * unrevoked refresh token; tokens without sid (issued by older versions) are judged by the user alone.
 */
export const ACCESS_USER_SQL = `SELECT u.id, u.username, u.email, u.is_staff, u.is_admin, u.is_verified, u.is_active, u.tokens_valid_after,
  ($2::uuid IS NULL OR EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = $2::uuid AND r.revoked_at IS NULL)) AS session_live
FROM users u WHERE u.id = $1::uuid`;

export interface AccessUserRow {
  id: string;
  username: string;
  email: string;
  is_staff: boolean;
  is_admin: boolean;
  is_verified: boolean;
  is_active: boolean;
  tokens_valid_after: Date | null;
  session_live: boolean;
}

/** When the token was issued, in ms: iat_ms when present, else the start of the iat second; null if unknown. */
function issuedAtMs(claims: Partial<AccessClaims>): number | null {
  if (typeof claims.iat_ms === 'number' && Number.isFinite(claims.iat_ms)) return claims.iat_ms;
  return typeof claims.iat === 'number' ? claims.iat * 1000 : null;
}

/**
 * The caller behind verified access-token claims, or null when the claims are not an access token,
 * the user is gone or deactivated, the token's session was ended (logout, refresh-token reuse), or the
 * token was issued at or before the user's sessions were invalidated (password reset, deactivation).
 * passport-jwt calls this on REST; the socket transport calls it with the claims it verified at the
 * handshake: one rule for both. A verified token always has an issue time; claims without one are a
 * caller's shorthand (a user id it already checked) and are judged by the user and the session alone, so
 * the socket transport must pass the claims it verified for the time check to apply to live sockets.
 * The user is taken from accessUserCache when it holds it; `fresh` reads the database in any case (a socket
 * keeps its own cache for CALLER_CACHE_TTL_MS: when that runs out, it asks the database, not another cache).
 */
export async function userFromAccessClaims(claims: Partial<AccessClaims>, options: { fresh?: boolean } = {}): Promise<AuthUser | null> {
  if (claims.type !== 'access' || typeof claims.sub !== 'string' || !UUID.test(claims.sub)) return null;
  const sid = typeof claims.sid === 'string' && UUID.test(claims.sid) ? claims.sid : null;
  const row = (options.fresh ? undefined : accessUserCache.get(claims.sub, sid)) ?? (await readAccessUser(claims.sub, sid));
  if (!row || !row.is_active || !row.session_live) return null;
  const issued = issuedAtMs(claims);
  if (row.tokens_valid_after && issued !== null && issued <= row.tokens_valid_after.getTime()) return null;
  return { id: row.id, username: row.username, email: row.email, isStaff: row.is_staff, isAdmin: row.is_admin, isVerified: row.is_verified };
}

/**
 * ACCESS_USER_SQL for several callers at once: row `n` answers the n-th (user, session) pair, none when the
 * user does not exist.
 */
export const ACCESS_USERS_SQL = `SELECT k.n, u.id, u.username, u.email, u.is_staff, u.is_admin, u.is_verified, u.is_active, u.tokens_valid_after,
  (k.sid IS NULL OR EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = k.sid AND r.revoked_at IS NULL)) AS session_live
FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS k(uid, sid, n) JOIN users u ON u.id = k.uid`;

/** The most callers one read answers; more wait for the next read. */
export const ACCESS_BATCH_MAX = 64;

/** Reads sent and the callers they answered, since the process started (tests check that callers share reads). */
export const accessReads = { reads: 0, callers: 0 };

/**
 * One statement for the callers that ask together (src/platform/gathered-reads.ts): ACCESS_USER_SQL for a lone one,
 * ACCESS_USERS_SQL for several. Named where the database allows it (a server: planned once per connection).
 */
const readAccessUsers = gatheredReads<{ sub: string; sid: string | null }, AccessUserRow & { n?: number }>({
  max: ACCESS_BATCH_MAX,
  query: (keys, named) =>
    keys.length === 1
      ? { name: named ? 'access_user' : undefined, text: ACCESS_USER_SQL, values: [keys[0].sub, keys[0].sid] }
      : { name: named ? 'access_users' : undefined, text: ACCESS_USERS_SQL, values: [keys.map((k) => k.sub), keys.map((k) => k.sid)] },
  answers: (keys, rows) => (keys.length === 1 ? [rows[0]] : byOrdinal<AccessUserRow & { n?: number }>('n')(keys, rows)),
  onSend: (callers) => {
    accessReads.reads++;
    accessReads.callers += callers;
  },
});

/**
 * What the caller lookup read about each (user, session) lately, dropped on every node when the user's access
 * changes (caller-cache.ts explains when it may be used). The realtime layer carries the announcements.
 */
export const accessUserCache = new CallerCache<AccessUserRow>();

/**
 * The caller lookup behind every authenticated request and socket check when the cache has no answer: shared.
 * Callers that ask in the same turn of the event loop (requests read from the sockets together) or while that
 * read still waits for a pool connection join it, and one statement answers them all. Each answer is read
 * after its caller asked, so a logout, reset or deactivation committed before a request arrived is seen by it.
 * Under load (20 clients) about four callers share a round trip; a lone caller waits for nobody (the read
 * leaves at the end of the same turn). What it finds is kept in the cache unless a change was announced
 * since the caller asked.
 */
async function readAccessUser(sub: string, sid: string | null): Promise<AccessUserRow | undefined> {
  const generation = accessUserCache.generation;
  const row = await readAccessUsers({ sub, sid });
  if (row) accessUserCache.fill(sub, sid, row, generation);
  return row;
}

/**
 * Verify an access token and load its user (socket handshake and auth:renew). Read fresh: the socket keeps
 * what it reads for CALLER_CACHE_TTL_MS (realtime/caller.ts), counted from this read.
 */
export async function authenticateAccessToken(token: string): Promise<{ user: AuthUser; expiresAt: number; claims: AccessClaims } | null> {
  let claims: AccessClaims;
  try {
    claims = jwt.verify(token, platform.jwtKey, { algorithms: ['HS256'] }) as AccessClaims;
  } catch {
    return null;
  }
  const user = await userFromAccessClaims(claims, { fresh: true });
  return user ? { user, expiresAt: claims.exp * 1000, claims } : null;
}
