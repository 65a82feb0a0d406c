import { AppError } from '../../core/errors.js';
import { domainEvents } from '../../core/events.js';
import { ExpiringCache } from '../../core/expiring-cache.js';
import { locationDetail } from './locations.service.js';
import './location-events.js';

/**
 * A place's name and public counts as a neighbourhood display shows them (`GET /display/{id}` and its
 * `summary.json`). Counting members, posts and stores is three counts per read, and a thousand screens on one place
 * would run them on every load: each place's summary is read at most once per PLACE_SUMMARY_TTL_MS on each node,
 * concurrent misses sharing the read, so a screen may show counts up to that old (the page then follows live
 * events). An unknown place is kept as null the same time, so a screen asking for a missing place costs no more.
 * A place whose name or members change (`location.updated`, after its commit on this node) is read again at once: a
 * screen that reconnects right after someone moved in reads the new neighbours count. Other nodes' copies age out.
 */
export const PLACE_SUMMARY_TTL_MS = 5_000;
/** Bounded for callers that ask for many ids (each a distinct key): about 200 bytes an entry. */
const PLACE_SUMMARY_MAX = 10_000;

export interface PlaceSummary {
  id: string;
  name: string;
  total_users: number;
  post_count: number;
  store_count: number;
}

/** The cache's clock: a test holds it still, so that a burst which a loaded machine serves slowly stays in one window. */
export const placeSummaryClock = { now: (): number => Date.now() };

export const placeSummaries = new ExpiringCache<PlaceSummary | null>(PLACE_SUMMARY_TTL_MS, PLACE_SUMMARY_MAX, () => placeSummaryClock.now());

domainEvents.subscribe((event) => {
  if (event.name === 'location.updated') placeSummaries.forget(event.payload.location.id);
});

/** The summary of the place `id` (a lower-case UUID), null when there is no such place. */
export function placeSummary(id: string): Promise<PlaceSummary | null> {
  return placeSummaries.get(id, () => readPlaceSummary(id));
}

async function readPlaceSummary(id: string): Promise<PlaceSummary | null> {
  try {
    const location = await locationDetail(id);
    return { id: location.id, name: location.name, total_users: location.total_users, post_count: location.post_count, store_count: location.store_count };
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
}
