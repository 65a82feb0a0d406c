/**
 * Values loaded by key and kept for `ttlMs` from the moment their load began, for reads that many callers make
 * at once and that may be a few seconds old. Concurrent misses of one key share one load (the entry holds the load's
 * promise from its start). A failed load is not kept: its waiters get its error, and the next call loads again.
 * At most `max` entries: every entry lives the same time, so the oldest inserted is the first to expire and the
 * first to go when the cache is full.
 */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; expiresAt: number }>();
  /** Loads started since the process started: what the cache let through to the source. */
  loads = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.now();
    const held = this.entries.get(key);
    if (held && held.expiresAt > now) return held.value;
    if (held) this.entries.delete(key);
    this.loads++;
    const entry = { value: load(), expiresAt: now + this.ttlMs };
    this.entries.set(key, entry);
    entry.value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.max) break;
      this.entries.delete(oldest);
    }
    return entry.value;
  }

  /** Drop what is kept for `key` (it changed): the next call loads again. */
  forget(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
