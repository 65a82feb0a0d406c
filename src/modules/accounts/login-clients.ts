import crypto from 'node:crypto';
import { and, eq, gt, sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import { loginClients } from '../../models/index.js';

/**
 * Known login clients: an (account, address) pair that logged in successfully lately. Each has a login
 * budget of its own (same size as the account's), so the shared per-account budget that strangers can
 * spend does not lock the owner out of a device it already uses. Addresses are stored as a keyed hash.
 * Trade-off: a stranger behind the owner's own address (same NAT) shares the owner's budget.
 */
export const KNOWN_CLIENT_DAYS = 30;

const clientKey = (ip: string) => crypto.createHmac('sha256', platform.jwtKey).update(`login-client:${ip}`).digest('base64url');

/** The per-account login budget key for an attempt from `ip`: the client's own if known, else the account's. */
export async function accountBudgetKey(userId: string, ip: string): Promise<string> {
  const key = clientKey(ip);
  const [known] = await platform.db
    .select({ userId: loginClients.userId })
    .from(loginClients)
    .where(and(eq(loginClients.userId, userId), eq(loginClients.clientKey, key), gt(loginClients.lastLoginAt, sql`now() - make_interval(days => ${KNOWN_CLIENT_DAYS})`)))
    .limit(1);
  return known ? `user:${userId}:client:${key}` : `user:${userId}`;
}

export async function rememberLoginClient(userId: string, ip: string): Promise<void> {
  await platform.db
    .insert(loginClients)
    .values({ userId, clientKey: clientKey(ip), lastLoginAt: new Date() })
    .onConflictDoUpdate({ target: [loginClients.userId, loginClients.clientKey], set: { lastLoginAt: new Date() } });
}
