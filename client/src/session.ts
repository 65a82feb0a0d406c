import { ApiError } from './errors.js';
import type { Ack } from './socket-link.js';
import { expiresAtLocal, lifetimeMs, TokenStore, type Tokens } from './tokens.js';
import { claimsOf } from './tokens.js';
import { retryAfterSeconds } from './retry-after.js';
import type { ServerClock } from './server-clock.js';

/**
 * The signed-in session: renewing the access token before it runs out, surviving refresh-token rotation by another
 * client that shares the storage, and ending cleanly when the service no longer accepts it.
 *
 * Renewal: a while before expiry (a fifth to two fifths of the lifetime; one to two minutes for long-lived tokens), the refresh token
 * is exchanged (`accounts.refresh`, over the socket when live, else REST) and a live socket is handed the new access
 * token (`auth:renew`), so it is never disconnected with `auth:expired`.
 *
 * Rotation: the service rotates refresh tokens on every use. Another tab or process with the same storage may have
 * rotated ours: before refreshing, the stored copy is read, and a newer one is taken instead of presenting a token
 * that was already used. Two refreshes at the very same moment are settled by the service (the second one within its
 * grace gets the same successor); a refusal is answered by reading the storage once more and trying once again.
 * Browsers serialise refreshes across tabs with the Web Locks API when they have it.
 */
export type EndReason = 'logout' | 'revoked';

export interface SessionDeps {
  tokens: TokenStore;
  clock: ServerClock;
  lockName: string;
  /** `accounts.refresh {refresh}`, by whichever transport is up; answers the service's `{status, body}`. */
  refreshCall(refresh: string): Promise<Ack>;
  /** `auth:renew {token}` on the live socket; null when none is connected. */
  renewSocket(access: string): Promise<Ack | null>;
  renewed(tokens: Tokens): void;
  ended(reason: EndReason): void;
}

/**
 * Renew when a fifth of the lifetime is left, at most a minute before expiry, plus up to as much again at random: clients
 * that share a session (tabs) then seldom renew at the same moment.
 */
const RENEW_SHARE = 0.2;
const RENEW_AT_MOST_MS = 60_000;
/** A call waits for a renewal rather than send a token with less than this left. */
const CALL_MARGIN_MS = 1000;
/** When a refresh failed for a passing reason (network, 503): try again after this long at the latest. */
const RETRY_MS = 5000;

export class Session {
  readonly ready: Promise<void>;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inFlight: Promise<boolean> | null = null;
  /** The service refused our access token (auth:expired, a 401): renew before using it again. */
  private refused = false;
  private closed = false;

  constructor(private readonly deps: SessionDeps) {
    this.ready = deps.tokens.read().then((stored) => {
      if (!stored || this.deps.tokens.tokens) return;
      deps.tokens.adopt(stored);
      this.schedule();
    });
  }

  get signedIn(): boolean {
    return this.deps.tokens.tokens !== null;
  }

  get accessToken(): string | null {
    return this.deps.tokens.tokens?.access ?? null;
  }

  /** The user id of the session (the token's `sub`). */
  get userId(): string | null {
    const access = this.accessToken;
    return access ? (claimsOf(access).sub ?? null) : null;
  }

  /** A new session from login or register. */
  async begin(answer: { access_token: string; refresh_token: string }): Promise<void> {
    this.refused = false;
    await this.store(answer);
  }

  /** The access token to send now, renewed first when it is about to run out or was refused. */
  async tokenForUse(): Promise<string | null> {
    await this.ready;
    const tokens = this.deps.tokens.tokens;
    if (!tokens) return null;
    if (this.refused || expiresAtLocal(tokens) - Date.now() < CALL_MARGIN_MS) {
      try {
        await this.refresh();
      } catch {
        // A passing failure: the token we have is still the best there is (the call may well be refused).
      }
    }
    return this.accessToken;
  }

  /** The service said our access token is no longer good (auth:expired, an unauthorized handshake). */
  markRefused(): void {
    this.refused = true;
  }

  /**
   * Renew now. true: a good session (renewed, or one another client renewed); false: there is none (never signed
   * in, or it ended, and `auth:ended` was told). Throws an ApiError for a passing failure (network, 429, 503),
   * after which the session stays and is tried again.
   */
  refresh(): Promise<boolean> {
    this.inFlight ??= this.withLock(() => this.refreshOnce()).finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  async end(reason: EndReason): Promise<void> {
    if (!this.signedIn) return;
    this.clearTimer();
    await this.deps.tokens.clear();
    this.deps.ended(reason);
  }

  stop(): void {
    this.closed = true;
    this.clearTimer();
  }

  private async refreshOnce(): Promise<boolean> {
    await this.ready;
    if (await this.adoptNewerStored()) return true;
    for (let attempt = 0; attempt < 2; attempt++) {
      const presented = this.deps.tokens.tokens;
      if (!presented) return false;
      const answer = await this.deps.refreshCall(presented.refresh);
      // The session changed while the call was out (a logout ended it, a login replaced it): the answer belongs to
      // the old one, and taking it would bring that session back.
      if (this.deps.tokens.tokens?.refresh !== presented.refresh) return this.deps.tokens.tokens !== null;
      if (answer.status === 200) {
        await this.store(answer.body as { access_token: string; refresh_token: string });
        return true;
      }
      if (answer.status !== 401 && answer.status !== 400) {
        this.schedule(Math.min(RETRY_MS, (retryAfterSeconds(answer.body) ?? RETRY_MS / 1000) * 1000));
        throw new ApiError(answer.status, answer.body, 'accounts.refresh');
      }
      // Refused: another client may have rotated the token first. Read the storage again and go on from its copy.
      if (attempt === 0 && (await this.adoptNewerStored(presented.refresh))) return true;
      if (this.deps.tokens.tokens?.refresh === presented.refresh) break;
    }
    await this.end('revoked');
    return false;
  }

  /**
   * Take the stored tokens when another client has rotated ours. true: they are fresh enough to use as they are
   * (the socket is handed the access token); false: nothing newer, or newer but due for renewal too (then adopted,
   * and the caller refreshes with them).
   */
  private async adoptNewerStored(than = this.deps.tokens.tokens?.refresh): Promise<boolean> {
    const stored = await this.deps.tokens.read();
    if (!stored || stored.refresh === than) return false;
    this.deps.tokens.adopt(stored);
    if (this.refused || this.dueAt(stored) <= Date.now()) return false;
    await this.handToSocket(stored);
    this.schedule();
    this.deps.renewed(stored);
    return true;
  }

  private async store(answer: { access_token: string; refresh_token: string }): Promise<void> {
    const receivedAt = Date.now();
    const tokens: Tokens = { access: answer.access_token, refresh: answer.refresh_token, receivedAt };
    const { iat } = claimsOf(tokens.access);
    if (typeof iat === 'number') this.deps.clock.observe(iat * 1000, receivedAt);
    await this.deps.tokens.save(tokens);
    this.refused = false;
    await this.handToSocket(tokens);
    this.schedule();
    this.deps.renewed(tokens);
  }

  /** A live socket takes the new access token (auth:renew). A refusal of a token just issued means the session is over. */
  private async handToSocket(tokens: Tokens): Promise<void> {
    let ack: Ack | null;
    try {
      ack = await this.deps.renewSocket(tokens.access);
    } catch {
      return; // the socket went away: its next handshake carries the new token
    }
    if (!ack || ack.status === 200) return;
    if (ack.status === 401) {
      this.refused = true;
      return;
    }
    // 503: the service could not check it now; the socket's current token runs on meanwhile. Try again shortly.
    const wait = (retryAfterSeconds(ack.body) ?? 5) * 1000;
    const retry = setTimeout(() => {
      if (!this.closed && this.deps.tokens.tokens === tokens) void this.handToSocket(tokens);
    }, wait);
    unref(retry);
  }

  /** When to renew these tokens (local ms): a share of the lifetime before expiry, spread a little between clients. */
  private dueAt(tokens: Tokens): number {
    const margin = Math.min(RENEW_AT_MOST_MS, lifetimeMs(tokens) * RENEW_SHARE) * (1 + Math.random());
    return expiresAtLocal(tokens) - margin;
  }

  private schedule(delayMs?: number): void {
    this.clearTimer();
    const tokens = this.deps.tokens.tokens;
    if (this.closed || !tokens) return;
    const delay = delayMs ?? Math.max(0, this.dueAt(tokens) - Date.now());
    // Timers are 32-bit: a token of weeks is looked at again after 24 days.
    this.timer = setTimeout(() => {
      this.timer = null;
      this.refresh().catch(() => undefined);
    }, Math.min(delay, 2 ** 31 - 1));
    unref(this.timer);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private withLock<T>(work: () => Promise<T>): Promise<T> {
    const locks = (globalThis as { navigator?: { locks?: { request(name: string, cb: () => Promise<T>): Promise<T> } } }).navigator?.locks;
    return locks ? locks.request(this.deps.lockName, work) : work();
  }
}

/**
 * A renewal alone does not keep a Node process running (a script that made its calls may end); an open socket does.
 * Browsers' timers are numbers and have nothing to release.
 */
function unref(timer: unknown): void {
  (timer as { unref?: () => void } | null)?.unref?.();
}
