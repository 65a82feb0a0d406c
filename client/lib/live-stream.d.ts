import type { Emitter } from './emitter.js';
import { type SeenSet } from './seen.js';
/**
 * The road from the socket to the app's handlers. While a catch-up runs, pushed events wait here, so that what
 * was missed reaches the handlers before what came after it; then they follow, less what the catch-up already
 * gave. Every delivered item is remembered (SeenSet), so none reaches the handlers twice.
 */
export declare class LiveStream<Events extends object> {
    private readonly emitter;
    private readonly seen;
    private held;
    constructor(emitter: Emitter<Events>, seen: SeenSet);
    /** Hold pushed events from now on (a catch-up starts); a hold already in place keeps what it holds. */
    hold(): void;
    /** Deliver what was held, in the order it came, then let events through again. */
    release(): void;
    /** A pushed event. */
    receive(name: string, payload: unknown): void;
    /** Hand an event to the app's handlers, and remember it. */
    deliver(name: string, payload: unknown): void;
}
