import { alreadySeen, keysOf } from './seen.js';
/**
 * The road from the socket to the app's handlers. While a catch-up runs, pushed events wait here, so that what
 * was missed reaches the handlers before what came after it; then they follow, less what the catch-up already
 * gave. Every delivered item is remembered (SeenSet), so none reaches the handlers twice.
 */
export class LiveStream {
    emitter;
    seen;
    held = null;
    constructor(emitter, seen) {
        this.emitter = emitter;
        this.seen = seen;
    }
    /** Hold pushed events from now on (a catch-up starts); a hold already in place keeps what it holds. */
    hold() {
        this.held ??= [];
    }
    /** Deliver what was held, in the order it came, then let events through again. */
    release() {
        const held = this.held ?? [];
        this.held = null;
        for (const [name, payload] of held)
            this.receive(name, payload);
    }
    /** A pushed event. */
    receive(name, payload) {
        if (this.held)
            return void this.held.push([name, payload]);
        if (!alreadySeen(this.seen, name, payload))
            this.deliver(name, payload);
    }
    /** Hand an event to the app's handlers, and remember it. */
    deliver(name, payload) {
        for (const key of keysOf(name, payload))
            this.seen.add(key);
        this.emitter.emit(name, payload);
    }
}
