/**
 * What the caller check read about a (user, session), kept so that a REST request of a caller seen in the last
 * minute costs no database round trip (the socket transport keeps the same per socket: realtime/caller.ts).
 *
 * Why it is safe: every change that can make an access token refused or change the caller's rights is made
 * through the service and announced after commit (`user.access_changed`, `user.deactivated`: logout, family
 * revocation, password reset, deactivation, an administrator's change of rights). The realtime layer applies
 * those on this node before the request that made them is answered, and on every other node when Redis carries
 * its node message (a few milliseconds: the window the sockets already have). It drops the entries of that
 * user here (`forgetUser`). A message that is lost (or never sent: the process died after commit) is made good by
 * the change's row in `access_changes`, which every node polls about once a second (access-changes.ts). A change
 * made outside the service (SQL by hand) is seen within CALLER_CACHE_TTL_MS.
 *
 * The cache is used only while those announcements can reach it: at least one realtime server is attached
 * (`openInvalidationChannel`) and, with Redis, its subscriber is connected and its poll of the changes succeeds.
 * While Redis is away every request reads the database, as it did without a cache, and when it is back
 * everything cached before is dropped, since announcements made meanwhile were lost.
 *
 * A read that began before a forget must not fill the cache with what it read (it may predate the change):
 * every forget moves `generation` on, and a read fills only if the generation it began in is still current.
 * Forgets are rare (logouts, resets), so losing the fills of the reads in flight at that moment costs nothing.
 */
export const CALLER_CACHE_TTL_MS = 60_000;
/** About 300 bytes an entry: at most ~15 MB. The oldest entries go first. */
const CALLER_CACHE_MAX = 50_000;

interface Entry<Row> {
  row: Row;
  userId: string;
  expiresAt: number;
}

export class CallerCache<Row> {
  private readonly entries = new Map<string, Entry<Row>>();
  /** userId → the keys of its entries (one per session), so that a user's forget touches only them. */
  private readonly keysOfUser = new Map<string, Set<string>>();
  private generationNow = 0;
  /** Open invalidation channels and whether each carries announcements now. */
  private readonly channels = new Map<symbol, boolean>();
  /** Hits and fills since the process started (tests and the benchmark look at them). */
  readonly counts = { hits: 0, fills: 0 };

  constructor(
    private readonly ttlMs = CALLER_CACHE_TTL_MS,
    private readonly max = CALLER_CACHE_MAX,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether announcements reach this process now: at least one channel, and every channel connected. */
  get usable(): boolean {
    if (this.channels.size === 0) return false;
    for (const up of this.channels.values()) if (!up) return false;
    return true;
  }

  get generation(): number {
    return this.generationNow;
  }

  get size(): number {
    return this.entries.size;
  }

  get(userId: string, sessionId: string | null): Row | undefined {
    if (!this.usable) return undefined;
    const key = keyOf(userId, sessionId);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(key, entry.userId);
      return undefined;
    }
    this.counts.hits++;
    return entry.row;
  }

  /** Keep what a read that began in `generation` found, unless something was forgotten since it began. */
  fill(userId: string, sessionId: string | null, row: Row, generation: number): void {
    if (generation !== this.generationNow || !this.usable) return;
    const key = keyOf(userId, sessionId);
    this.entries.delete(key);
    this.entries.set(key, { row, userId, expiresAt: this.now() + this.ttlMs });
    let keys = this.keysOfUser.get(userId);
    if (!keys) this.keysOfUser.set(userId, (keys = new Set()));
    keys.add(key);
    this.counts.fills++;
    if (this.entries.size > this.max) {
      const [oldestKey, oldest] = this.entries.entries().next().value!;
      this.remove(oldestKey, oldest.userId);
    }
  }

  /** The user's rights or sessions changed: its next check reads the database. */
  forgetUser(userId: string): void {
    this.generationNow++;
    const keys = this.keysOfUser.get(userId);
    if (!keys) return;
    for (const key of keys) this.entries.delete(key);
    this.keysOfUser.delete(userId);
  }

  forgetEverything(): void {
    this.generationNow++;
    this.entries.clear();
    this.keysOfUser.clear();
  }

  /**
   * A carrier of announcements (a realtime server): the cache is used while every open channel is up. A
   * channel going down or coming back drops everything: what was announced while it was down is lost.
   */
  openInvalidationChannel(connected: boolean): InvalidationChannel {
    const id = Symbol('caller-cache-channel');
    this.channels.set(id, connected);
    this.forgetEverything();
    const set = (up: boolean) => {
      if (!this.channels.has(id)) return;
      this.channels.set(id, up);
      this.forgetEverything();
    };
    return {
      up: () => set(true),
      down: () => set(false),
      close: () => {
        this.channels.delete(id);
        this.forgetEverything();
      },
    };
  }

  private remove(key: string, userId: string): void {
    this.entries.delete(key);
    const keys = this.keysOfUser.get(userId);
    keys?.delete(key);
    if (keys?.size === 0) this.keysOfUser.delete(userId);
  }
}

export interface InvalidationChannel {
  up(): void;
  down(): void;
  close(): void;
}

const keyOf = (userId: string, sessionId: string | null) => `${userId}:${sessionId ?? ''}`;
