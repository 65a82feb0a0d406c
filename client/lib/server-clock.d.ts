/**
 * An estimate of the server's clock, never ahead of it. realtime.sync takes a `since` on the server's clock, and a
 * phone's clock may be minutes off: a `since` ahead of the server's would skip what was missed. Every server
 * timestamp the client sees is at most the server's time when it arrived, so `arrival − timestamp` bounds the
 * offset (local − server) from above; the smallest such bound is the best. Unknown until a first observation.
 */
export declare class ServerClock {
    private offsetUpper;
    /** A server time (ISO text or ms) seen at local time `at`. */
    observe(serverTime: string | number | null | undefined, at?: number): void;
    /** The server's time at local time `local`, or earlier; without any observation, assume a minute of skew. */
    serverTimeAt(local: number): number;
}
/** The timestamps of a pushed payload that say when it was made on the server. */
export declare function payloadTime(payload: unknown): string | undefined;
