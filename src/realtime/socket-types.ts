import type { Socket } from 'socket.io';
import type { AuthUser } from '../core/context.js';
import type { AccessClaims } from '../modules/accounts/tokens.js';

/**
 * A signed-in socket's session: the verified claims of its access token, and the caller as last checked
 * against the database (`user`, null while the cache is cold). See caller.ts for when it is checked again.
 */
export interface SocketSession {
  claims: AccessClaims;
  /** When the access token runs out (ms). Checked on every event without the database. */
  expiresAt: number;
  user: AuthUser;
  /** When `user` was last confirmed by the database; null: confirm before the next event is served. */
  checkedAt: number | null;
  /** Bumped whenever the cached caller is dropped, so a check that was already running cannot refill it. */
  generation: number;
}

export interface SocketData {
  /** null: an anonymous socket (no token at the handshake, or signed out). */
  session: SocketSession | null;
  expiryTimer?: unknown;
  /** Bumped by every residents-room reconciliation; only the latest one may apply what it read. */
  residencySeq: number;
  /** Bumped whenever what this socket may watch changes (rights, session, a channel right ended). */
  accessEpoch: number;
  /** What this socket is counted under by the connection caps (socket-limits.ts). */
  countedIp?: string;
  countedUserId?: string;
  /** Events received in the current one-second window (socket-limits.ts). */
  eventWindow?: { startedAt: number; count: number };
}

export type Ack = (response: { status: number; body: unknown }) => void;
export type AppSocket = Socket<Record<string, (...args: any[]) => void>, Record<string, (...args: any[]) => void>, Record<string, (...args: any[]) => void>, SocketData>;
