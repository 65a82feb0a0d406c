/**
 * What the app's handlers were already given, by kind, id and version (keysOf below): a catch-up
 * delivers only what is not here, and a live event that repeats a caught-up one is dropped. Bounded: the oldest
 * keys go first, and a catch-up only ever reaches back a few seconds before the last thing heard.
 */
export declare class SeenSet {
    private readonly limit;
    private readonly keys;
    constructor(limit?: number);
    has(key: string): boolean;
    add(key: string): void;
    delete(key: string): void;
    clear(): void;
}
/** The kinds realtime.sync replays, and the events that carry them live. */
export declare const REPLAYED_EVENTS: readonly ["post:created", "post:updated", "post:deleted", "message:created", "notification:created", "notification:updated", "order:created", "order:updated"];
export type ReplayedEvent = (typeof REPLAYED_EVENTS)[number];
/** A post deletion's keys: the post's "gone" state and, when known, this deletion's own version. */
export declare function postDeletionKeys(id: string, deletedAt?: unknown): string[];
/** The keys a delivered event marks as seen (see above); none for what is never replayed. */
export declare function keysOf(event: string, payload: unknown): string[];
/** Whether a live event repeats something the handlers already have (only replayed kinds can). */
export declare function alreadySeen(seen: SeenSet, event: string, payload: unknown, keys?: string[]): boolean;
/** Remember what was delivered. A post delivered alive is no longer gone: its next deletion is new. */
export declare function markSeen(seen: SeenSet, event: string, payload: unknown, keys?: string[]): void;
