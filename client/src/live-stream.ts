import type { Emitter } from './emitter.js';
import { alreadySeen, keysOf, type SeenSet } from './seen.js';

/**
 * The road from the socket to the app's handlers. While a catch-up runs, pushed events wait here, so that what
 * was missed reaches the handlers before what came after it; then they follow, less what the catch-up already
 * gave. Every delivered item is remembered (SeenSet), so none reaches the handlers twice.
 */
export class LiveStream<Events extends object> {
  private held: Array<[string, unknown]> | null = null;

  constructor(
    private readonly emitter: Emitter<Events>,
    private readonly seen: SeenSet,
  ) {}

  /** Hold pushed events from now on (a catch-up starts); a hold already in place keeps what it holds. */
  hold(): void {
    this.held ??= [];
  }

  /** Deliver what was held, in the order it came, then let events through again. */
  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const [name, payload] of held) this.receive(name, payload);
  }

  /** A pushed event. */
  receive(name: string, payload: unknown): void {
    if (this.held) return void this.held.push([name, payload]);
    if (!alreadySeen(this.seen, name, payload)) this.deliver(name, payload);
  }

  /** Hand an event to the app's handlers, and remember it. */
  deliver(name: string, payload: unknown): void {
    for (const key of keysOf(name, payload)) this.seen.add(key);
    this.emitter.emit(name as keyof Events, payload as Events[keyof Events]);
  }
}
