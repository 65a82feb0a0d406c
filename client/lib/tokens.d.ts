/**
 * The session's tokens: in memory, and in `storage` when the app gives one (localStorage, AsyncStorage, a file:
 * anything with getItem/setItem/removeItem, synchronous or not). Stored as one JSON item, so a reader never sees
 * an access token of one rotation beside the refresh token of another.
 */
export interface StorageLike {
    getItem(key: string): string | null | undefined | Promise<string | null | undefined>;
    setItem(key: string, value: string): void | Promise<void>;
    removeItem(key: string): void | Promise<void>;
}
export interface Tokens {
    access: string;
    refresh: string;
    /** When this copy was received (local ms): with the token's own iat and exp, how long it lives here. */
    receivedAt: number;
}
interface Claims {
    iat?: number;
    exp?: number;
    sub?: string;
}
/** The claims of a JWT, unverified (the server verifies; the client only needs to know when it runs out). */
export declare function claimsOf(token: string): Claims;
/**
 * When the access token runs out, on this machine's clock: its lifetime (exp − iat, both the server's) counted from
 * when it arrived, so a phone whose clock is minutes off still renews in time. iat and exp are whole seconds and iat
 * is rounded down: the token may have been issued up to a second after iat, so a second less is counted.
 */
export declare function expiresAtLocal(tokens: Tokens): number;
export declare function lifetimeMs(tokens: Tokens): number;
export declare class TokenStore {
    private readonly storage;
    private readonly key;
    private current;
    constructor(storage: StorageLike | undefined, key: string);
    get tokens(): Tokens | null;
    /** What the storage holds now (another tab or client may have rotated the tokens); null without storage. */
    read(): Promise<Tokens | null>;
    /** Take the stored tokens as ours (at start, or when another client rotated them). */
    adopt(tokens: Tokens | null): void;
    save(tokens: Tokens): Promise<void>;
    /**
     * Forget the session. The stored copy goes only if it is still ours: another client that signed in again meanwhile
     * keeps its session.
     */
    clear(): Promise<void>;
}
export {};
