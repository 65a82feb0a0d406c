import type { ScopedPlace } from './scoped-place.js';

/**
 * The places around a place, kept SCOPE_TTL_MS per node: they follow published boundaries, which move only
 * when a place's members reach a milestone or the nightly job runs, so a new neighbour appears in the
 * enhancements and in a new feed snapshot at most this late.
 *
 * Feed pages also remember where each reader lived at its last page (`rememberHome`): page 1 then hands the
 * places kept for that home to its statement, which uses them only if the reader still lives there (ranking.ts)
 * and otherwise finds the places around the new home itself. Where the reader lives is never taken from here.
 */
export const SCOPE_TTL_MS = 60_000;
const MAX_ENTRIES = 20_000;
const MAX_HOMES = 50_000;

interface Entry {
  expires: number;
  places: Promise<ScopedPlace[]>;
  /** The places once read. */
  known?: ScopedPlace[];
}

const entries = new Map<string, Entry>();
const homes = new Map<string, string>();

/** Feed pages started with kept places, and those that found the places around the reader themselves. */
export const scopeUse = { kept: 0, found: 0 };

export function cachedScope(key: string, load: () => Promise<ScopedPlace[]>): Promise<ScopedPlace[]> {
  const now = Date.now();
  const hit = entries.get(key);
  if (hit && hit.expires > now) return hit.places;
  const places = load();
  const entry: Entry = { expires: now + SCOPE_TTL_MS, places };
  store(key, entry);
  places.then(
    (known) => (entry.known = known),
    // A failed lookup is not remembered.
    () => entries.get(key) === entry && entries.delete(key),
  );
  return places;
}

/** The places kept for `key`, if they are known now (never a read). */
export function knownScope(key: string): ScopedPlace[] | undefined {
  const entry = entries.get(key);
  return entry && entry.expires > Date.now() ? entry.known : undefined;
}

/** Keep places found elsewhere (a feed page's own statement) under `key`. */
export function keepScope(key: string, places: ScopedPlace[]): void {
  store(key, { expires: Date.now() + SCOPE_TTL_MS, places: Promise.resolve(places), known: places });
}

/** Where `userId` lived at its last feed page (a guess to check, never an answer). */
export function rememberedHome(userId: string): string | undefined {
  return homes.get(userId);
}

export function rememberHome(userId: string, homeId: string): void {
  if (homes.get(userId) === homeId) return;
  homes.delete(userId);
  homes.set(userId, homeId);
  if (homes.size > MAX_HOMES) homes.delete(homes.keys().next().value!);
}

function store(key: string, entry: Entry): void {
  entries.delete(key);
  entries.set(key, entry);
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
}

/** Tests that move boundaries start from an empty cache. */
export function clearScopeCache(): void {
  entries.clear();
  homes.clear();
}
