import type http from 'node:http';
import { Server, type Socket } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import { guardPublishes } from './redis-publisher.js';
import type { Operation } from '../core/operation.js';
import type { OperationRunner } from '../core/run-operation.js';
import { domainEvents } from '../core/events.js';
import { platform } from '../platform/index.js';
import { authenticateAccessToken } from '../modules/accounts/tokens.js';
import { startSession } from './caller.js';
import { systemClock, type Clock, type RealtimeDeps } from './clock.js';
import { currentLocationId } from '../modules/users/users.queries.js';
import { createDispatcher } from './dispatcher.js';
import { routeDomainEvent } from './event-routes.js';
import { cancelExpiry, scheduleExpiry } from './expiry.js';
import { RealtimeNode } from './node.js';
import { joinOwnRooms } from './session.js';
import type { AppSocket } from './socket-types.js';

/**
 * Socket.IO (DESIGN.md section 5): handshake auth with the same token check as REST, every operation
 * as an event whose ack is `{status, body}` (dispatcher.ts), channel subscriptions, and domain events
 * pushed to rooms (event-routes.ts).
 */
export interface RealtimeOptions {
  /** Time for token expiry and the caller cache (tests pass a manual clock). */
  clock?: Clock;
  /**
   * Prefix of the Redis adapter's channels (default `socket.io`): the nodes that share it form one cluster.
   * Test runs on one machine use their own, so that one run's broadcasts never reach another's sockets.
   */
  adapterKey?: string;
  /** Where a user lives now (residents' rooms); tests hold these reads to put a race in a chosen order. */
  locationOf?: (userId: string) => Promise<string | null>;
}

export function createRealtimeServer(httpServer: http.Server, operations: readonly Operation[], runner: OperationRunner, options: RealtimeOptions = {}): Server {
  const deps: RealtimeDeps = { clock: options.clock ?? systemClock, locationOf: options.locationOf ?? currentLocationId };
  const { clock } = deps;
  const io = new Server(httpServer, {
    path: '/socket.io/',
    cors: { origin: platform.config.CORS_ORIGINS === '*' ? true : platform.config.CORS_ORIGINS.split(',').map((o) => o.trim()), credentials: true },
    maxHttpBufferSize: 1e6,
  });

  if (platform.redis) {
    // Events emitted on one node reach sockets connected to every node.
    const pub = guardPublishes(platform.redis.duplicate(), (err) => platform.log.warn({ err }, 'a realtime event could not reach the other nodes'));
    const sub = platform.redis.duplicate();
    io.adapter(createAdapter(pub, sub, options.adapterKey ? { key: options.adapterKey } : {}));
    httpServer.on('close', () => {
      // quit, not disconnect: the adapter's (un)subscribe commands may still be queued (a server stopped
      // right after it started), and disconnect rejects them with no one listening, an unhandled
      // rejection that ends the process. quit lets them finish first.
      void quitWhenConnected(pub);
      void quitWhenConnected(sub);
    });
  }
  const node = new RealtimeNode(io, deps, Boolean(platform.redis));
  const attachDispatcher = createDispatcher(operations, runner, deps);

  io.use(async (socket: AppSocket, next) => {
    socket.data.session = null;
    socket.data.residencySeq = 0;
    socket.data.accessEpoch = 0;
    const token = handshakeToken(socket);
    if (token === undefined) return next();
    const auth = token ? await authenticateAccessToken(token).catch(() => null) : null;
    if (!auth) return next(new Error('unauthorized'));
    startSession(socket, auth, clock);
    next();
  });

  io.on('connection', (socket: AppSocket) => {
    // The dispatcher first: a client may emit as soon as it is connected, before its rooms are joined.
    attachDispatcher(socket);
    socket.on('disconnect', () => cancelExpiry(socket, clock));
    if (!socket.data.session) return;
    scheduleExpiry(socket, clock);
    joinOwnRooms(socket, deps);
  });

  const unsubscribe = domainEvents.subscribe((event) => {
    try {
      routeDomainEvent(node, event);
      platform.metrics.countEventPushed(event.name);
    } catch (err) {
      platform.log.error({ err, event: event.name }, 'failed to push a domain event');
    }
  });
  httpServer.on('close', unsubscribe);
  return io;
}

/**
 * The access token of the handshake: `auth.token`, else an `Authorization: Bearer` header. undefined: none
 * was given (an anonymous socket); '' : something was given that cannot be a token (refused, DESIGN.md 5).
 */
function handshakeToken(socket: Socket): string | undefined {
  const auth = socket.handshake.auth as Record<string, unknown> | undefined;
  const fromAuth = auth && typeof auth === 'object' && Object.hasOwn(auth, 'token') ? auth.token : undefined;
  if (fromAuth !== undefined) return typeof fromAuth === 'string' ? fromAuth.replace(/^Bearer\s+/i, '').trim() : '';
  // The scheme is case-insensitive, as passport-jwt reads it on REST.
  return /^Bearer\s+(\S+)$/i.exec(socket.handshake.headers.authorization ?? '')?.[1] ?? undefined;
}

export type { AppSocket, SocketData } from './socket-types.js';

/**
 * Quit a client of the adapter once its connection is up. A server stopped right after it started (tests, a
 * failed start) would otherwise quit a client that is still connecting, and ioredis rejects the adapter's queued
 * (p)subscribe with "Connection is closed", a rejection the adapter leaves unhandled.
 */
async function quitWhenConnected(client: Redis, waitMs = 2000): Promise<void> {
  if (client.status === 'connecting' || client.status === 'connect' || client.status === 'wait') {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      client.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  await client.quit().catch(() => undefined);
}
