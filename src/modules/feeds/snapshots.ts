import { platform } from '../../platform/index.js';
import type { RankKey } from './ranking.js';
import type { ScopedPlace } from './scope.queries.js';

/**
 * A reader's snapshot of one feed (docs/modules/feeds.md): when it began, where the reader lived, the places and penalties it reads, and
 * the last item of every page served so far. Page 1 always begins a new snapshot; page N continues below
 * the last item of page N-1. Kept in Redis when there is one (every node sees it), else in this process
 * (one node), for SNAPSHOT_TTL_SECONDS after the last page read.
 */
export const SNAPSHOT_TTL_SECONDS = 30 * 60;
const MEMORY_MAX = 10_000;

export interface FeedSnapshot {
  at: string;
  pageSize: number;
  places: ScopedPlace[];
  everything: boolean;
  /** Where the reader lived when the snapshot began (feeds that follow the reader's home start anew after a move). */
  home?: string | null;
  /** Page number → the last item of that page. */
  ends: Record<string, RankKey>;
}

const memory = new Map<string, { snapshot: FeedSnapshot; expires: number }>();
const keyOf = (userId: string, feed: string) => `feed:snapshot:${userId}:${feed}`;

export async function readSnapshot(userId: string, feed: string): Promise<FeedSnapshot | null> {
  const key = keyOf(userId, feed);
  const redis = platform.redis;
  if (redis && redis.status === 'ready') {
    const raw = await redis.get(key).catch(() => null);
    return raw ? (JSON.parse(raw) as FeedSnapshot) : null;
  }
  const entry = memory.get(key);
  if (!entry || entry.expires < Date.now()) return null;
  return entry.snapshot;
}

export async function saveSnapshot(userId: string, feed: string, snapshot: FeedSnapshot): Promise<void> {
  const key = keyOf(userId, feed);
  const redis = platform.redis;
  if (redis && redis.status === 'ready') {
    // A lost write only means the next page is found by offset within the snapshot time instead of by key.
    await redis.set(key, JSON.stringify(snapshot), 'EX', SNAPSHOT_TTL_SECONDS).catch(() => undefined);
    return;
  }
  memory.delete(key);
  memory.set(key, { snapshot, expires: Date.now() + SNAPSHOT_TTL_SECONDS * 1000 });
  if (memory.size > MEMORY_MAX) memory.delete(memory.keys().next().value!);
}
