import type { Emitter } from './emitter.js';
import { alreadySeen, markSeen, type SeenSet } from './seen.js';

/** The most pushed events a catch-up holds (createClient's `maxHeldEvents`). */
export const DEFAULT_MAX_HELD_EVENTS = 1000;

/**
 * The road from the socket to the app's handlers. While a catch-up runs, pushed events wait here, so that what
 * was missed reaches the handlers before what came after it; then they follow, less what the catch-up already
 * gave. Every delivered item is remembered (SeenSet), so none reaches the handlers twice.
 *
 * What waits is bounded: a catch-up that keeps failing (realtime.sync answering 429 or 5xx) while the socket stays
 * up would otherwise hold every push for as long as it fails. One event past `maxHeld` drops all of them, and the
 * app is told `full_refresh {reason: 'overflow'}`: what it shows can no longer be made whole event by event.
 */
export class LiveStream<Events extends object> {
  private held: Array<[string, unknown]> | null = null;

  constructor(
    private readonly emitter: Emitter<Events>,
    private readonly seen: SeenSet,
    private readonly maxHeld = DEFAULT_MAX_HELD_EVENTS,
  ) {}

  /** Hold pushed events from now on (a catch-up starts); a hold already in place keeps what it holds. */
  hold(): void {
    this.held ??= [];
  }

  /** How many events wait (diagnostics, tests). */
  get heldCount(): number {
    return this.held?.length ?? 0;
  }

  /** Deliver what was held, in the order it came, then let events through again. */
  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const [name, payload] of held) this.receive(name, payload);
  }

  /** A pushed event. */
  receive(name: string, payload: unknown): void {
    if (this.held) return this.keep(name, payload);
    if (!alreadySeen(this.seen, name, payload)) this.deliver(name, payload);
  }

  /** Hand an event to the app's handlers, and remember it (`keys`: a replayed item's own, seen.ts). */
  deliver(name: string, payload: unknown, keys?: string[]): void {
    markSeen(this.seen, name, payload, keys);
    this.emitter.emit(name as keyof Events, payload as Events[keyof Events]);
  }

  private keep(name: string, payload: unknown): void {
    const held = this.held!;
    held.push([name, payload]);
    if (held.length <= this.maxHeld) return;
    // Still holding afterwards: what comes next waits for the catch-up as before, and may overflow again.
    held.length = 0;
    this.emitter.emit('full_refresh' as keyof Events, { reason: 'overflow' } as Events[keyof Events]);
  }
}
