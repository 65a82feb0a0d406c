import type { Emitter } from './emitter.js';
import { type SeenSet } from './seen.js';
/** The most pushed events a catch-up holds (createClient's `maxHeldEvents`). */
export declare const DEFAULT_MAX_HELD_EVENTS = 1000;
/**
 * The road from the socket to the app's handlers. While a catch-up runs, pushed events wait here, so that what
 * was missed reaches the handlers before what came after it; then they follow, less what the catch-up already
 * gave. Every delivered item is remembered (SeenSet), so none reaches the handlers twice.
 *
 * What waits is bounded: a catch-up that keeps failing (realtime.sync answering 429 or 5xx) while the socket stays
 * up would otherwise hold every push for as long as it fails. One event past `maxHeld` drops all of them, and the
 * app is told `full_refresh {reason: 'overflow'}`: what it shows can no longer be made whole event by event.
 */
export declare class LiveStream<Events extends object> {
    private readonly emitter;
    private readonly seen;
    private readonly maxHeld;
    private held;
    constructor(emitter: Emitter<Events>, seen: SeenSet, maxHeld?: number);
    /** Hold pushed events from now on (a catch-up starts); a hold already in place keeps what it holds. */
    hold(): void;
    /** How many events wait (diagnostics, tests). */
    get heldCount(): number;
    /** Deliver what was held, in the order it came, then let events through again. */
    release(): void;
    /** A pushed event. */
    receive(name: string, payload: unknown): void;
    /** Hand an event to the app's handlers, and remember it (`keys`: a replayed item's own, seen.ts). */
    deliver(name: string, payload: unknown, keys?: string[]): void;
    private keep;
}
