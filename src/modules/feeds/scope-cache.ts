import type { ScopedPlace } from './scope.queries.js';

/**
 * The places around a place, kept SCOPE_TTL_MS per node: they follow published boundaries, which move only
 * when a place's members reach a milestone or the nightly job runs, so a new neighbour appears in the
 * enhancements at most this late. (Feed pages find the places around the reader in their own statement,
 * ranking.ts, and cache nothing.)
 */
export const SCOPE_TTL_MS = 60_000;
const MAX_ENTRIES = 20_000;

const entries = new Map<string, { expires: number; places: Promise<ScopedPlace[]> }>();

export function cachedScope(key: string, load: () => Promise<ScopedPlace[]>): Promise<ScopedPlace[]> {
  const now = Date.now();
  const hit = entries.get(key);
  if (hit && hit.expires > now) return hit.places;
  const places = load();
  entries.delete(key);
  entries.set(key, { expires: now + SCOPE_TTL_MS, places });
  // A failed lookup is not remembered.
  places.catch(() => entries.delete(key));
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  return places;
}

/** Tests that move boundaries start from an empty cache. */
export function clearScopeCache(): void {
  entries.clear();
}
