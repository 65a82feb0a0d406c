import type { AuthUser } from '../core/context.js';
import type { AccessClaims } from '../modules/accounts/tokens.js';
/**
 * Time as the realtime layer sees it: token expiry on live sockets and the caller cache's age. Injectable so
 * that tests drive expiry in milliseconds instead of waiting for it (createRealtimeServer's `clock` option).
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * What the realtime layer reads from outside besides the caller: time, and where a user lives now.
 * One object per server; tests replace parts of it (a manual clock, location reads they hold to order a race).
 */
export interface RealtimeDeps {
  clock: Clock;
  locationOf: (userId: string) => Promise<string | null>;
  /** The token check of the handshake and of auth:renew (tests hold it to order a race). */
  authenticate: (token: string) => Promise<{ user: AuthUser; claims: AccessClaims; expiresAt: number } | null>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    // setTimeout overflows past ~24.8 days; a longer wait is re-armed when it fires early.
    const timer = setTimeout(fn, Math.min(Math.max(0, ms), 2 ** 31 - 1));
    // A pending expiry must not keep a stopping process alive.
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
};
