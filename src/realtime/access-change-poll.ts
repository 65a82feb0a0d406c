import { platform } from '../platform/index.js';
import { readAccessChangesSince, type AccessChangesRead } from '../modules/accounts/access-changes.js';
import type { InvalidationChannel } from '../modules/accounts/caller-cache.js';

/**
 * The durable path of `caller_changed`: every node reads the access changes committed lately (one statement a
 * second, whatever the number of users or requests) and applies each one it has not applied yet, exactly as if
 * its Redis announcement had arrived. The announcement stays the fast path (milliseconds); this poll bounds the
 * time a lost one costs: a logged-out, reset or deactivated caller is refused on every node within about
 * ACCESS_CHANGE_POLL_MS plus one read, even when Redis dropped the message or the process that made the change
 * died between commit and publish.
 *
 * A change's row is written before its transaction commits, so a poll may miss a row that commits just after
 * it began; the next poll therefore reads from ACCESS_CHANGE_LOOKBACK_MS before the previous one began, and
 * skips the rows it has already applied. Only a transaction that commits more than the look-back after writing
 * its row could be missed; the ones that write them are short.
 *
 * While the polls fail or lag (the database is away or saturated), the bound cannot be kept: the poll's
 * invalidation channel goes down, so the process's cache is not used and every check reads the database, until
 * a poll succeeds again.
 */
export const ACCESS_CHANGE_POLL_MS = 1000;
export const ACCESS_CHANGE_LOOKBACK_MS = 10_000;
/** No successful poll for this long: the caches stop answering. */
export const ACCESS_CHANGE_STALE_MS = 3000;

export interface AccessChangePoll {
  stop(): void;
}

export function pollAccessChanges(options: {
  /** Forget what this node cached about the user and check its sockets again (RealtimeNode's caller_changed). */
  apply: (userId: string) => void;
  /** Up while the polls keep the bound; down when they fail or lag. */
  channel: InvalidationChannel;
  read?: (since: Date | null, lookbackMs: number) => Promise<AccessChangesRead>;
  intervalMs?: number;
}): AccessChangePoll {
  const { apply, channel, read = readAccessChangesSince, intervalMs = ACCESS_CHANGE_POLL_MS } = options;
  let since: Date | null = null;
  /** Changes applied whose rows the next poll may read again: id → changed_at (ms). */
  const applied = new Map<number, number>();
  let inFlight = false;
  let lastSuccess = Date.now();
  let up = true;
  let stopped = false;

  const poll = async () => {
    inFlight = true;
    try {
      const result = await read(since, ACCESS_CHANGE_LOOKBACK_MS);
      if (stopped) return;
      for (const change of result.changes) {
        if (applied.has(change.id)) continue;
        applied.set(change.id, change.changedAt.getTime());
        apply(change.userId);
      }
      since = new Date(result.readAt.getTime() - ACCESS_CHANGE_LOOKBACK_MS);
      for (const [id, changedAt] of applied) if (changedAt <= since.getTime()) applied.delete(id);
      lastSuccess = Date.now();
      if (!up) {
        up = true;
        channel.up();
      }
    } catch (err) {
      // A read cut short by the server's own stop is no news.
      if (stopped) return;
      platform.log.warn({ err }, 'could not read the access changes: callers are checked against the database until it answers');
    } finally {
      inFlight = false;
    }
  };

  const tick = () => {
    if (up && Date.now() - lastSuccess > ACCESS_CHANGE_STALE_MS) {
      up = false;
      channel.down();
    }
    if (!inFlight) void poll();
  };
  void poll();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      channel.close();
    },
  };
}
