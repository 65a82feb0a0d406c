import type { Operations, ServerEvents, SyncDeletion, User } from './generated/api.js';
import type { ApiError } from './errors.js';
import type { StorageLike } from './tokens.js';
export type { StorageLike } from './tokens.js';
export type OperationName = keyof Operations;
export type InputOf<K extends OperationName> = Operations[K]['input'];
export type AnswerOf<K extends OperationName> = Operations[K]['answer'];
/**
 * - `offline`: no socket (REST only: `realtime: false`, after `disconnect()` or `close()`).
 * - `connecting`: opening the socket, or waiting to open it again.
 * - `catching-up`: connected; rooms are joined again and what was missed is being delivered.
 * - `live`: connected and caught up: every pushed event reaches the handlers as it comes.
 */
export type Status = 'offline' | 'connecting' | 'catching-up' | 'live';
export interface Subscription {
    channel: 'location' | 'post' | 'community' | (string & {});
    id: string;
}
/** Events of the client itself, beside the server's. */
export interface ClientEvents {
    status: Status;
    /**
     * The session is over: `logout` (this client's logout()), or `revoked` (the service no longer accepts it: signed
     * out elsewhere, the account deactivated, a refresh token refused). Tokens are gone; the socket goes on anonymous.
     */
    'auth:ended': {
        reason: 'logout' | 'revoked';
    };
    /** A new access token is in use (renewed, or taken over from another client sharing the storage). */
    'auth:renewed': {
        expires_at: string | null;
    };
    /**
     * The gap was too long to replay (older than the deletions the service keeps, or more than the client pages
     * through), or more events were pushed during a catch-up than the client holds (`overflow`, they were dropped):
     * drop cached data and load afresh. What could be replayed is still delivered.
     */
    full_refresh: {
        reason: 'retention' | 'too_much' | 'overflow';
    };
    /** A comment or message that went away while the client was offline (posts come as `post:deleted`). */
    deleted: SyncDeletion;
    /** A kept subscription the service refused when it was joined again (the object is gone, or no longer visible). */
    'subscription:ended': Subscription & {
        status: number;
        body: unknown;
    };
    /** Something the client keeps trying by itself failed once (a catch-up): for logs and diagnostics. */
    error: ApiError | Error;
}
export type EventMap = ServerEvents & ClientEvents;
export type EventName = keyof EventMap;
export interface ClientOptions {
    /** The service's address, e.g. `https://hyperlocal.example` (REST paths and the socket hang off it). */
    baseUrl: string;
    /** false: REST only, never a socket (status stays `offline`, no pushed events). Default true. */
    realtime?: boolean;
    /** Where tokens are kept across restarts and shared between tabs; memory only when absent. */
    storage?: StorageLike;
    /** The key under which `storage` keeps the session (default `hyperlocal.session`). */
    storageKey?: string;
    /** Retries of a 429 or 503 answer (default 3), and the longest Retry-After waited for (default 60 s). */
    retry?: {
        maxRetries?: number;
        maxWaitSeconds?: number;
    };
    /** Headers added to every REST request. */
    headers?: Record<string, string>;
    /** The fetch to use (default the global one). */
    fetch?: typeof fetch;
    /** Socket.IO transports (default socket.io's: polling, then an upgrade to WebSocket). */
    transports?: string[];
    /** How long a socket call waits for its ack (default 15 s). */
    ackTimeoutMs?: number;
    /** Events sent per second on the socket, under the service's per-socket budget (default 15). */
    eventsPerSecond?: number;
    /**
     * The most pushed events held while a catch-up runs (default 1000); one more drops them all and reports
     * `full_refresh {reason: 'overflow'}`.
     */
    maxHeldEvents?: number;
    /**
     * The app's own reads after each connection, before `live`: rooms are joined again and, when signed in, the
     * missed items were delivered; events pushed meanwhile are held until it resolves. `reconnect` is false the first time.
     */
    onCatchUp?: (info: {
        reconnect: boolean;
    }) => void | Promise<void>;
}
export interface CallOptions {
    /** Force a transport (tests, diagnostics); by default the socket when it is connected, else REST. */
    transport?: 'socket' | 'rest';
}
type Optional<T> = Record<string, never> extends T ? [input?: T, options?: CallOptions] : [input: T, options?: CallOptions];
export interface HyperlocalClient {
    readonly status: Status;
    /** The signed-in user as login or register answered it; null when signed out or not yet known. */
    readonly user: User | null;
    readonly signedIn: boolean;
    /** Resolves once the stored session (if any) is loaded. */
    readonly ready: Promise<void>;
    register(input: InputOf<'accounts.register'>): Promise<AnswerOf<'accounts.register'>>;
    login(credentials: {
        username: string;
        password: string;
    }): Promise<AnswerOf<'accounts.login'>>;
    logout(): Promise<void>;
    /** Renew the access token now (it is renewed by itself before it runs out). */
    renew(): Promise<void>;
    /** Run an operation: over the socket when connected, else REST (files always REST). Rejects with ApiError. */
    call<K extends OperationName>(operation: K, ...args: Optional<InputOf<K>>): Promise<AnswerOf<K>>;
    on<K extends EventName>(event: K, handler: (payload: EventMap[K]) => void): void;
    off<K extends EventName>(event: K, handler: (payload: EventMap[K]) => void): void;
    /** Watch a room; kept across reconnects. Rejects with ApiError when the service refuses it now. */
    subscribe(subscription: Subscription): Promise<void>;
    unsubscribe(subscription: Subscription): Promise<void>;
    /** Open the socket (again). */
    connect(): void;
    /** Close the socket on purpose (the app went to the background); REST calls still work. */
    disconnect(): void;
    /** Stop everything: socket, timers, handlers. */
    close(): void;
}
