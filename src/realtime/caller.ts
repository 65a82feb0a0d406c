import crypto from 'node:crypto';
import type { AuthUser, RequestContext } from '../core/context.js';
import { channelOfRoom } from '../core/channels.js';
import { INTERNAL_ERROR_BODY } from '../core/errors.js';
import { clientAddress, isTrustedProxy } from '../core/client-address.js';
import { isDatabaseUnavailable, SERVICE_UNAVAILABLE_BODY } from '../core/database-errors.js';
import { platform } from '../platform/index.js';
import { userFromAccessClaims, type AccessClaims } from '../modules/accounts/tokens.js';
import type { Clock } from './clock.js';
import type { AppSocket } from './socket-types.js';

/**
 * The caller of a socket event, checked like a REST request without a database round trip per event.
 *
 * The token's expiry is checked on every event. The user behind the token (active, rights, sessions not
 * ended) is confirmed with `userFromAccessClaims(claims)`, the rule REST applies, and cached on the socket.
 * The cache is dropped on every node when `user.access_changed` or `user.deactivated` is published for the
 * user (node.ts), so a change reaches the next event; a lost message is made good within seconds by the poll of
 * access changes (access-change-poll.ts), and this TTL bounds a change made by hand.
 */
export const CALLER_CACHE_TTL_MS = 60_000;

export function startSession(socket: AppSocket, auth: { user: AuthUser; claims: AccessClaims; expiresAt: number }, clock: Clock): void {
  socket.data.session = {
    claims: auth.claims,
    expiresAt: auth.expiresAt,
    user: auth.user,
    checkedAt: clock.now(),
    generation: (socket.data.session?.generation ?? 0) + 1,
  };
}

/** Drop the cached caller: the next event (or recheckCaller) asks the database again. */
export function forgetCaller(socket: AppSocket): void {
  const session = socket.data.session;
  if (!session) return;
  session.checkedAt = null;
  session.generation++;
}

/**
 * The user this socket's token stands for now, or null when the token has expired or is no longer accepted.
 * Reads the database only when the cache is cold; throws if that read fails.
 */
export async function checkedCaller(socket: AppSocket, clock: Clock): Promise<AuthUser | null> {
  const session = socket.data.session;
  if (!session) return null;
  if (session.expiresAt <= clock.now()) return null;
  if (session.checkedAt !== null && clock.now() - session.checkedAt < CALLER_CACHE_TTL_MS) return session.user;
  const generation = session.generation;
  const user = await userFromAccessClaims(session.claims, { fresh: true });
  if (!user) return null;
  // A change published while we were reading must win: only fill the cache if nothing dropped it meanwhile.
  if (socket.data.session === session && session.generation === generation) {
    session.user = user;
    session.checkedAt = clock.now();
  }
  return user;
}

export async function callerContext(socket: AppSocket, clock: Clock): Promise<RequestContext> {
  const session = socket.data.session;
  const ctx = socketContext(socket, null);
  if (!session) return ctx;
  const user = await checkedCaller(socket, clock);
  return user ? { ...ctx, user } : { ...ctx, authError: true };
}

/**
 * Run `fn` for the caller of this event. Checking the caller may read the database; if that fails the event
 * is answered 500, as REST answers it, instead of becoming an unhandled rejection that ends the process.
 */
export async function withCaller<R extends { status: number; body: unknown }>(
  socket: AppSocket,
  clock: Clock,
  fn: (ctx: RequestContext) => Promise<R>,
): Promise<R | { status: 500 | 503; body: unknown }> {
  let ctx: RequestContext;
  try {
    ctx = await callerContext(socket, clock);
  } catch (err) {
    platform.log.error({ err }, 'could not check the caller of a socket event');
    // Out of database time (a full pool, a slow server) is busy, not broken: 503, as REST answers it.
    if (isDatabaseUnavailable(err)) return { status: 503, body: { ...SERVICE_UNAVAILABLE_BODY } };
    return { status: 500, body: INTERNAL_ERROR_BODY };
  }
  return fn(ctx);
}

/** The request context of a socket event for `user` (the transport facts come from the handshake). */
export function socketContext(socket: AppSocket, user: AuthUser | null): RequestContext {
  const headers = socket.handshake.headers;
  // X-Forwarded-* only from a trusted proxy, by the same rule as REST (core/client-address.ts).
  const peer = socket.conn.remoteAddress;
  const forwardedProto = isTrustedProxy(peer) ? (headers['x-forwarded-proto'] as string | undefined)?.split(',')[0]?.trim() : undefined;
  const proto = forwardedProto || (socket.handshake.secure ? 'https' : 'http');
  return {
    transport: 'socket',
    requestId: crypto.randomUUID(),
    user,
    authError: false,
    ip: clientAddress(peer, headers['x-forwarded-for'] as string | undefined),
    userAgent: (headers['user-agent'] as string | undefined) ?? '',
    baseUrl: platform.config.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? `${proto}://${headers.host}`,
    cookies: {},
    subscriptions: subscriptionsOf(socket),
  };
}

/** The channels this socket is subscribed to: its rooms are the one record of them. */
export function subscriptionsOf(socket: AppSocket): Array<{ channel: string; id: string }> {
  const subscriptions: Array<{ channel: string; id: string }> = [];
  for (const room of socket.rooms) {
    const subscription = channelOfRoom(room);
    if (subscription) subscriptions.push(subscription);
  }
  return subscriptions;
}

