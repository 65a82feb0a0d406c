/**
 * What the app's handlers were already given, by kind and id (and version, for things that change): a catch-up
 * delivers only what is not here, and a live event that repeats a caught-up one is dropped. Bounded: the oldest
 * keys go first, and a catch-up only ever reaches back a few seconds before the last thing heard.
 */
export declare class SeenSet {
    private readonly limit;
    private readonly keys;
    constructor(limit?: number);
    has(key: string): boolean;
    add(key: string): void;
    clear(): void;
}
/** The kinds realtime.sync replays, and the events that carry them live. */
export declare const REPLAYED_EVENTS: readonly ["post:created", "post:deleted", "message:created", "notification:created", "notification:updated", "order:created", "order:updated"];
export type ReplayedEvent = (typeof REPLAYED_EVENTS)[number];
/**
 * The keys a delivered event marks as seen. A notification or an order is "created" once (its id) and then "changed"
 * at each updated_at; a post or a message is one item; a deletion is one item.
 */
export declare function keysOf(event: string, payload: unknown): string[];
/** Whether a live event repeats something the handlers already have (only replayed kinds can). */
export declare function alreadySeen(seen: SeenSet, event: string, payload: unknown): boolean;
