import { throttled } from '../core/errors.js';
import type { AppSocket } from './socket-types.js';

/**
 * Limits on sockets themselves (operations have their own rate limits): live connections per user and per
 * client address, and events per second per socket. Connections are counted on each node, in memory: they
 * live and die with the node's sockets, so no count can be left behind by a crash or a Redis outage. Behind
 * the cluster's nginx (ip_hash) one address always reaches the same node; a user's devices may be spread over
 * nodes, so the per-user cap is per node.
 */
export interface SocketLimitsConfig {
  maxConnectionsPerUser: number;
  maxConnectionsPerIp: number;
  eventsPerSecond: number;
}

export class ConnectionCaps {
  private readonly perUser = new Map<string, number>();
  private readonly perIp = new Map<string, number>();

  constructor(private readonly limits: SocketLimitsConfig) {}

  /** Count a new socket from `ip`; null when admitted, else the refusal message (connect_error). */
  admitAddress(socket: AppSocket, ip: string): string | null {
    if ((this.perIp.get(ip) ?? 0) >= this.limits.maxConnectionsPerIp) {
      return `Too many connections from this address (at most ${this.limits.maxConnectionsPerIp}).`;
    }
    increment(this.perIp, ip);
    socket.data.countedIp = ip;
    return null;
  }

  /** Count a socket signed in as `userId` (handshake or auth:renew of an anonymous socket). */
  admitUser(socket: AppSocket, userId: string): string | null {
    if (socket.data.countedUserId === userId) return null;
    if ((this.perUser.get(userId) ?? 0) >= this.limits.maxConnectionsPerUser) {
      return `Too many connections for this user (at most ${this.limits.maxConnectionsPerUser}).`;
    }
    this.releaseUser(socket);
    increment(this.perUser, userId);
    socket.data.countedUserId = userId;
    return null;
  }

  /** The socket signed out: it no longer counts for its user. */
  releaseUser(socket: AppSocket): void {
    if (socket.data.countedUserId) decrement(this.perUser, socket.data.countedUserId);
    socket.data.countedUserId = undefined;
  }

  /** The socket is gone (or was refused after being counted). */
  release(socket: AppSocket): void {
    this.releaseUser(socket);
    if (socket.data.countedIp !== undefined) decrement(this.perIp, socket.data.countedIp);
    socket.data.countedIp = undefined;
  }
}

const increment = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 0) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/**
 * Events per second per socket, in a fixed one-second window: an event over the budget is answered 429 and
 * not run, so a client looping on emit costs an ack, not a database query. null: within the budget.
 */
export function overEventBudget(socket: AppSocket, eventsPerSecond: number, now: number): { status: 429; body: unknown } | null {
  const window = socket.data.eventWindow;
  if (!window || now - window.startedAt >= 1000) {
    socket.data.eventWindow = { startedAt: now, count: 1 };
    return null;
  }
  window.count++;
  if (window.count <= eventsPerSecond) return null;
  const refused = throttled((window.startedAt + 1000 - now) / 1000);
  return { status: 429, body: refused.body };
}
