import type http from 'node:http';
import { Server, type Socket } from 'socket.io';
import { clusterAdapter } from './adapter.js';
import { directBroadcastWrites } from './direct-broadcast.js';
import type { SocketLibraryVersions } from './socket-library-versions.js';
import type { Operation } from '../core/operation.js';
import type { OperationRunner } from '../core/run-operation.js';
import { domainEvents } from '../core/events.js';
import { platform } from '../platform/index.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable, SERVICE_UNAVAILABLE_BODY } from '../core/database-errors.js';
import { INTERNAL_ERROR_BODY } from '../core/errors.js';
import { accessUserCache, authenticateAccessToken } from '../modules/accounts/tokens.js';
import { socketContext, startSession } from './caller.js';
import { ConnectionCaps } from './socket-limits.js';
import { systemClock, type Clock, type RealtimeDeps } from './clock.js';
import { currentLocationId } from '../modules/users/users.queries.js';
import { createDispatcher } from './dispatcher.js';
import { routeDomainEvent } from './event-routes.js';
import { cancelExpiry, scheduleExpiry } from './expiry.js';
import { RealtimeNode, type SendToOtherNodes } from './node.js';
import { pollAccessChanges } from './access-change-poll.js';
import { catchUpOwnRooms, enterOwnRooms, readOwnRooms, type OwnRooms } from './own-rooms.js';
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
  /** The token check of the handshake and auth:renew; tests hold it to put a race in a chosen order. */
  authenticate?: RealtimeDeps['authenticate'];
  /** How node messages leave for the other nodes (RealtimeNode); tests drop some, as a Redis outage would. */
  sendToOtherNodes?: SendToOtherNodes;
  /** The socket libraries' versions as direct-broadcast.ts sees them (read from node_modules when absent); tests fake a mismatch. */
  socketLibraryVersions?: SocketLibraryVersions;
}

export function createRealtimeServer(httpServer: http.Server, operations: readonly Operation[], runner: OperationRunner, options: RealtimeOptions = {}): Server {
  const deps: RealtimeDeps = {
    clock: options.clock ?? systemClock,
    locationOf: options.locationOf ?? currentLocationId,
    authenticate: options.authenticate ?? authenticateAccessToken,
  };
  const { clock } = deps;
  const { config } = platform;
  const io = new Server(httpServer, {
    path: '/socket.io/',
    cors: { origin: config.CORS_ORIGINS === '*' ? true : config.CORS_ORIGINS.split(',').map((o) => o.trim()), credentials: true },
    // A larger message closes the connection (Engine.IO's rule); the largest operation input is far below.
    maxHttpBufferSize: config.SOCKET_MAX_PAYLOAD_BYTES,
  });
  // A broadcast's frame goes straight to each connection that can take it (direct-broadcast.ts: why, and when it can go).
  directBroadcastWrites(io, { log: platform.log, libraryVersions: options.socketLibraryVersions });

  // Events emitted on one node reach sockets connected to every node.
  const adapter = platform.redis ? clusterAdapter(platform.redis, config.REDIS_ADAPTER, options.adapterKey) : null;
  if (adapter) {
    io.adapter(adapter.factory);
    httpServer.on('close', () => adapter.close());
  }
  const node = new RealtimeNode(io, deps, adapter !== null, options.sendToOtherNodes);
  // The process's caller cache (REST and handshakes) is used only while this node hears every announcement of
  // a change of access: at once without Redis (one node), while the subscriber is connected with it.
  const callerAnnouncements = accessUserCache.openInvalidationChannel(adapter ? adapter.sub.status === 'ready' : true);
  httpServer.on('close', () => callerAnnouncements.close());
  // Node messages sent while this node's subscriber was away are lost: drop every cached caller once it is back.
  let subscriberLost = false;
  adapter?.sub.on('close', () => {
    subscriberLost = true;
    callerAnnouncements.down();
  });
  adapter?.sub.on('ready', () => {
    callerAnnouncements.up();
    if (!subscriberLost) return;
    subscriberLost = false;
    platform.log.info('Redis is back: realtime callers are checked again');
    node.forgetEveryCaller();
  });
  // Announcements between nodes may be lost; the changes they announce are also read from the database, so a
  // node forgets a changed caller within seconds in any case. One node hears its own changes in-process.
  if (adapter) {
    const poll = pollAccessChanges({
      apply: (userId) => node.applyHere({ kind: 'caller_changed', userId }),
      channel: accessUserCache.openInvalidationChannel(true),
    });
    httpServer.on('close', () => poll.stop());
  }
  const caps = new ConnectionCaps({
    maxConnectionsPerUser: config.SOCKET_MAX_CONNECTIONS_PER_USER,
    maxConnectionsPerIp: config.SOCKET_MAX_CONNECTIONS_PER_IP,
    eventsPerSecond: config.SOCKET_EVENTS_PER_SECOND,
  });
  // RATE_LIMITS=off (load tests, benchmarks) lifts the event budget with the operation limits; the caps stay.
  const eventsPerSecond = config.RATE_LIMITS === 'off' ? Number.POSITIVE_INFINITY : config.SOCKET_EVENTS_PER_SECOND;
  const attachDispatcher = createDispatcher(operations, runner, deps, { eventsPerSecond, maxSubscriptions: config.SOCKET_MAX_SUBSCRIPTIONS, caps });

  io.use(async (socket: AppSocket, next) => {
    socket.data.session = null;
    socket.data.residencySeq = 0;
    socket.data.accessEpoch = 0;
    const token = handshakeToken(socket);
    let auth: Awaited<ReturnType<RealtimeDeps['authenticate']>> = null;
    try {
      auth = token ? await deps.authenticate(token) : null;
    } catch (err) {
      // The check could not be made: that says nothing about the token, and `unauthorized` would make a
      // client throw a good token away and sign the person out.
      return next(checkFailed(err, 'could not check the token of a socket handshake'));
    }
    if (token !== undefined && !auth) return next(new Error('unauthorized'));
    // Its own rooms are read now, before the client hears `connect` (own-rooms.ts): without them the socket
    // would miss what is pushed the moment it is connected, and could hear someone it hides. No read, no socket.
    let rooms: OwnRooms | null = null;
    try {
      rooms = auth ? await readOwnRooms(auth.user.id, deps) : null;
    } catch (err) {
      return next(checkFailed(err, 'could not read the rooms of a socket handshake'));
    }
    // A client that hung up while its token was checked never becomes a socket (Socket.IO fires no
    // 'disconnect' for it): counting it would leak a connection slot of its address and user for good.
    if (socket.conn.readyState !== 'open') return next(new Error('closed'));
    // Counted only once the socket is known to be admitted; released when its connection closes, whether or not
    // it ever became a connected socket (release is idempotent; 'disconnect' releases it too).
    const refusal = caps.admitAddress(socket, socketContext(socket, null).ip) ?? (auth ? caps.admitUser(socket, auth.user.id) : null);
    if (refusal) {
      caps.release(socket);
      return next(tooManyConnections(refusal));
    }
    socket.conn.once('close', () => caps.release(socket));
    if (auth && rooms) {
      startSession(socket, auth, clock);
      // Synchronous: Socket.IO sends the client its `connect` after next(), with the socket in every room.
      enterOwnRooms(socket, auth.user.id, rooms);
    }
    next();
  });

  io.on('connection', (socket: AppSocket) => {
    // The dispatcher first: a client may emit as soon as it is connected.
    attachDispatcher(socket);
    socket.on('disconnect', () => {
      cancelExpiry(socket, clock);
      caps.release(socket);
    });
    if (!socket.data.session) return;
    scheduleExpiry(socket, clock);
    // Room changes routed while the handshake ran did not reach the socket, which was not connected yet.
    void catchUpOwnRooms(socket, deps);
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

/** A refused connection: the client's `connect_error` carries the message and `data: {status: 429, detail}`. */
function tooManyConnections(message: string): Error {
  const err = new Error(message) as Error & { data?: unknown };
  err.data = { status: 429, detail: message };
  return err;
}

/**
 * A handshake whose token could not be checked, or whose rooms could not be read (a read threw instead of
 * answering), as REST answers it: the database unreachable or out of time is `unavailable` with
 * `data: {status: 503, detail, retry_after}` (seconds, REST's Retry-After); anything else is `internal` with
 * `data: {status: 500, detail}`. Either way the token was not judged, so the client keeps it and connects again later.
 */
function checkFailed(err: unknown, what: string): Error {
  const unavailable = isDatabaseUnavailable(err);
  platform.log.error({ err }, what);
  const refusal = new Error(unavailable ? 'unavailable' : 'internal') as Error & { data?: unknown };
  refusal.data = unavailable
    ? { status: 503, detail: SERVICE_UNAVAILABLE_BODY.detail, retry_after: DATABASE_RETRY_AFTER_SECONDS }
    : { status: 500, detail: INTERNAL_ERROR_BODY.detail };
  return refusal;
}
