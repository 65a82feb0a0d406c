import type { Clock } from '../../src/realtime/clock.js';

/**
 * A clock the test moves by hand (`advance`), for the realtime layer's token expiry and caller cache:
 * expiry on a live socket is watched in milliseconds. Starts at the real time, so real tokens verify.
 */
export class ManualClock implements Clock {
  private current = Date.now();
  private timers = new Map<number, { at: number; fn: () => void }>();
  private nextId = 1;

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.current + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Move time forward and fire every timer that falls due, in order (including ones they set). */
  advance(ms: number): void {
    const until = this.current + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.current = Math.max(this.current, due[1].at);
      due[1].fn();
    }
    this.current = until;
  }

  /** Back to the real time (between tests, so tokens issued now are valid again); pending timers are kept. */
  reset(): void {
    this.current = Date.now();
  }

  /** Timers waiting (one per signed-in socket). */
  get pending(): number {
    return this.timers.size;
  }
}
