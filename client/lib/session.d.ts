import type { Ack } from './socket-link.js';
import { TokenStore, type Tokens } from './tokens.js';
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
export declare class Session {
    private readonly deps;
    readonly ready: Promise<void>;
    private timer;
    private inFlight;
    /** The service refused our access token (auth:expired, a 401): renew before using it again. */
    private refused;
    private closed;
    constructor(deps: SessionDeps);
    get signedIn(): boolean;
    get accessToken(): string | null;
    /** The user id of the session (the token's `sub`). */
    get userId(): string | null;
    /** A new session from login or register. */
    begin(answer: {
        access_token: string;
        refresh_token: string;
    }): Promise<void>;
    /** The access token to send now, renewed first when it is about to run out or was refused. */
    tokenForUse(): Promise<string | null>;
    /** The service said our access token is no longer good (auth:expired, an unauthorized handshake). */
    markRefused(): void;
    /**
     * Renew now. true: a good session (renewed, or one another client renewed); false: there is none (never signed
     * in, or it ended, and `auth:ended` was told). Throws an ApiError for a passing failure (network, 429, 503),
     * after which the session stays and is tried again.
     */
    refresh(): Promise<boolean>;
    end(reason: EndReason): Promise<void>;
    stop(): void;
    private refreshOnce;
    /**
     * Take the stored tokens when another client has rotated ours. true: they are fresh enough to use as they are
     * (the socket is handed the access token); false: nothing newer, or newer but due for renewal too (then adopted,
     * and the caller refreshes with them).
     */
    private adoptNewerStored;
    private store;
    /** A live socket takes the new access token (auth:renew). A refusal of a token just issued means the session is over. */
    private handToSocket;
    /** When to renew these tokens (local ms): a share of the lifetime before expiry, spread a little between clients. */
    private dueAt;
    private schedule;
    private clearTimer;
    private withLock;
}
