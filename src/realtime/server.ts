import type http from 'node:http';
import crypto from 'node:crypto';
import { Server, type Socket } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Operation } from '../core/operation.js';
import { runOperation, type OperationRunner } from '../core/run-operation.js';
import type { AuthUser, RequestContext } from '../core/context.js';
import { domainEvents } from '../core/events.js';
import { INTERNAL_ERROR_BODY } from '../core/errors.js';
import { platform } from '../platform/index.js';
import { authenticateAccessToken, userFromAccessClaims } from '../modules/accounts/tokens.js';
import { currentLocationId } from '../modules/users/users.queries.js';
import { residentsRoom, routeDomainEvent } from './event-routes.js';
import { clientAddress, isTrustedProxy } from '../core/client-address.js';
import { handleSubscribe, handleUnsubscribe } from './subscriptions.js';

/**
 * Socket.IO (DESIGN.md section 5): handshake auth with the same token check as REST, every operation
 * as an event whose ack is `{status, body}`, channel subscriptions, and domain events pushed to rooms.
 */
export interface SocketData {
  user: AuthUser | null;
  tokenExpiresAt: number | null;
  expiryTimer?: NodeJS.Timeout;
  subscriptions: Map<string, { channel: string; id: string }>;
}

type AppSocket = Socket<Record<string, (...args: any[]) => void>, Record<string, (...args: any[]) => void>, Record<string, never>, SocketData>;

export function createRealtimeServer(httpServer: http.Server, operations: readonly Operation[], runner: OperationRunner): Server {
  const io = new Server(httpServer, {
    path: '/socket.io/',
    cors: { origin: platform.config.CORS_ORIGINS === '*' ? true : platform.config.CORS_ORIGINS.split(',').map((o) => o.trim()), credentials: true },
    maxHttpBufferSize: 1e6,
  });

  if (platform.redis) {
    // Events emitted on one node reach sockets connected to every node.
    const pub = platform.redis.duplicate();
    const sub = platform.redis.duplicate();
    io.adapter(createAdapter(pub, sub));
    httpServer.on('close', () => {
      // quit, not disconnect: the adapter's (un)subscribe commands may still be queued (a server stopped
      // right after it started), and disconnect rejects them with no one listening, an unhandled
      // rejection that ends the process. quit lets them finish first.
      pub.quit().catch(() => undefined);
      sub.quit().catch(() => undefined);
    });
  }

  io.use(async (socket, next) => {
    const token = handshakeToken(socket);
    socket.data.subscriptions = new Map();
    socket.data.user = null;
    socket.data.tokenExpiresAt = null;
    if (!token) return next();
    const auth = await authenticateAccessToken(token).catch(() => null);
    if (!auth) return next(new Error('unauthorized'));
    socket.data.user = auth.user;
    socket.data.tokenExpiresAt = auth.expiresAt;
    next();
  });

  io.on('connection', (socket: AppSocket) => {
    void onConnection(socket, operations, runner);
  });

  const unsubscribe = domainEvents.subscribe((event) => {
    try {
      routeDomainEvent(io, event);
    } catch (err) {
      platform.log.error({ err, event: event.name }, 'failed to push a domain event');
    }
  });
  httpServer.on('close', unsubscribe);
  return io;
}

async function onConnection(socket: AppSocket, operations: readonly Operation[], runner: OperationRunner): Promise<void> {
  // Handlers first: a client may emit as soon as it is connected, before the room lookups finish.
  for (const op of operations) {
    socket.on(op.name, async (...args: unknown[]) => {
      const ack = typeof args[args.length - 1] === 'function' ? (args.pop() as (r: unknown) => void) : null;
      const result = await withCaller(socket, (ctx) => runOperation(runner, op, args[0] ?? {}, ctx));
      ack?.({ status: result.status, body: result.body ?? null });
    });
  }
  socket.on('subscribe', async (input: unknown, ack?: (r: unknown) => void) => ack?.(await withCaller(socket, (ctx) => handleSubscribe(socket, input, ctx))));
  socket.on('unsubscribe', async (input: unknown, ack?: (r: unknown) => void) => ack?.(await handleUnsubscribe(socket, input)));
  socket.on('auth:renew', async (input: unknown, ack?: (r: unknown) => void) => {
    const token = (input as { token?: unknown })?.token;
    const auth = typeof token === 'string' ? await authenticateAccessToken(token).catch(() => null) : null;
    if (!auth || (socket.data.user && auth.user.id !== socket.data.user.id)) return ack?.({ status: 401, body: { detail: 'Given token not valid for any token type' } });
    const signingIn = !socket.data.user;
    socket.data.user = auth.user;
    socket.data.tokenExpiresAt = auth.expiresAt;
    scheduleExpiry(socket);
    // An anonymous socket that signs in gets what a socket authenticated at the handshake has.
    if (signingIn) await joinOwnRooms(socket, auth.user);
    ack?.({ status: 200, body: { expires_at: new Date(auth.expiresAt).toISOString() } });
  });
  socket.on('disconnect', () => clearTimeout(socket.data.expiryTimer));

  const user = socket.data.user;
  if (!user) return;
  scheduleExpiry(socket);
  await joinOwnRooms(socket, user);
}

/** Every device of a user hears `user:<id>`, and follows the user's own location room. */
async function joinOwnRooms(socket: AppSocket, user: AuthUser): Promise<void> {
  socket.join(`user:${user.id}`);
  const locationId = await currentLocationId(user.id).catch(() => null);
  if (locationId && socket.connected) socket.join(residentsRoom(locationId));
}

/** When the access token runs out on a live socket: tell the client, then disconnect (unless renewed). */
function scheduleExpiry(socket: AppSocket): void {
  clearTimeout(socket.data.expiryTimer);
  const expiresAt = socket.data.tokenExpiresAt;
  if (!expiresAt) return;
  // setTimeout overflows past ~24.8 days; tokens live an hour by default.
  const delay = Math.min(Math.max(0, expiresAt - Date.now()), 2 ** 31 - 1);
  socket.data.expiryTimer = setTimeout(() => {
    if ((socket.data.tokenExpiresAt ?? 0) > Date.now()) return scheduleExpiry(socket);
    socket.emit('auth:expired', {});
    socket.disconnect(true);
  }, delay);
  socket.data.expiryTimer.unref();
}

function handshakeToken(socket: Socket): string | null {
  const fromAuth = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
  if (typeof fromAuth === 'string' && fromAuth) return fromAuth.replace(/^Bearer\s+/i, '');
  // The scheme is case-insensitive, as passport-jwt reads it on REST.
  return /^Bearer\s+(\S+)$/i.exec(socket.handshake.headers.authorization ?? '')?.[1] ?? null;
}

/**
 * The caller as of this event, checked like a REST request: the token must not have expired and the user
 * is loaded again, so a deactivation or a change of rights takes effect on live sockets at once, as on REST.
 */
async function freshSocketContext(socket: AppSocket): Promise<RequestContext> {
  const ctx = socketContext(socket);
  const cached = socket.data.user;
  if (!cached) return ctx;
  const expired = (socket.data.tokenExpiresAt ?? 0) <= Date.now();
  const user = expired ? null : await userFromAccessClaims({ type: 'access', sub: cached.id });
  if (!user) return { ...ctx, user: null, authError: true };
  socket.data.user = user;
  return { ...ctx, user };
}

/**
 * Run `fn` for the caller of this event. Checking the caller reads the database; if that fails the event
 * is answered 500, as REST answers it, instead of becoming an unhandled rejection that ends the process.
 */
async function withCaller(socket: AppSocket, fn: (ctx: RequestContext) => Promise<{ status: number; body: unknown }>): Promise<{ status: number; body: unknown }> {
  let ctx: RequestContext;
  try {
    ctx = await freshSocketContext(socket);
  } catch (err) {
    platform.log.error({ err }, 'could not check the caller of a socket event');
    return { status: 500, body: INTERNAL_ERROR_BODY };
  }
  return fn(ctx);
}

function socketContext(socket: AppSocket): RequestContext {
  const headers = socket.handshake.headers;
  // X-Forwarded-* only from a trusted proxy, by the same rule as REST (core/client-address.ts).
  const peer = socket.conn.remoteAddress;
  const forwardedProto = isTrustedProxy(peer) ? (headers['x-forwarded-proto'] as string | undefined)?.split(',')[0]?.trim() : undefined;
  const proto = forwardedProto || (socket.handshake.secure ? 'https' : 'http');
  return {
    transport: 'socket',
    requestId: crypto.randomUUID(),
    user: socket.data.user,
    authError: false,
    ip: clientAddress(peer, headers['x-forwarded-for'] as string | undefined),
    userAgent: (headers['user-agent'] as string | undefined) ?? '',
    baseUrl: platform.config.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? `${proto}://${headers.host}`,
    cookies: {},
    subscriptions: [...socket.data.subscriptions.values()],
  };
}

export type { AppSocket };
