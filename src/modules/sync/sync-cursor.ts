import { isUuid } from '../../core/validation.js';

/**
 * Where a client is in each kind of realtime.sync: the (changed at, id) of the last item it received. Items
 * come oldest first by that tuple, and the next page starts strictly after it, so rows that share a timestamp
 * are neither lost nor repeated. `at` keeps the database's microseconds (a JS Date would round them away).
 */
export interface SyncPosition {
  at: string;
  id: string;
}

export const SYNC_KINDS = ['notifications', 'messages', 'orders', 'posts', 'deleted'] as const;
export type SyncKind = (typeof SYNC_KINDS)[number];
export type SyncPositions = Record<SyncKind, SyncPosition>;

/** Kinds that cursors issued before them lack: such a cursor is still accepted. */
const LATER_KINDS: ReadonlySet<SyncKind> = new Set(['deleted']);

/** The largest uuid: a position (since, MAX_ID) starts strictly after `since`, whatever the ids at that instant. */
const MAX_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
/** The smallest: a position (at, MIN_ID) includes everything at that instant. */
const MIN_ID = '00000000-0000-0000-0000-000000000000';

/** Exact timestamps in the one format positions use: what Postgres `to_char(... 'US')` produces (UTC). */
const AT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function positionsFromSince(since: Date): SyncPositions {
  const at = since.toISOString().replace(/Z$/, '000Z');
  return Object.fromEntries(SYNC_KINDS.map((k) => [k, { at, id: MAX_ID }])) as SyncPositions;
}

/** Opaque to clients: base64url of the positions per kind. */
export function encodeCursor(positions: SyncPositions): string {
  const compact = Object.fromEntries(SYNC_KINDS.map((k) => [k, [positions[k].at, positions[k].id]]));
  return Buffer.from(JSON.stringify({ v: 1, ...compact })).toString('base64url');
}

/** The positions of a cursor, or null when it is not one this service gave out. */
export function decodeCursor(cursor: string): SyncPositions | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object' || (parsed as { v?: unknown }).v !== 1) return null;
  const out: Partial<SyncPositions> = {};
  for (const kind of SYNC_KINDS) {
    const pair = (parsed as Record<string, unknown>)[kind];
    // A kind added after the cursor was issued (`deleted`) starts at the cursor's oldest instant, below:
    // it may repeat an item (clients keep items by id), never skip one.
    if (pair === undefined && LATER_KINDS.has(kind)) continue;
    if (!Array.isArray(pair) || pair.length !== 2) return null;
    const [at, id] = pair;
    if (typeof at !== 'string' || !AT_RE.test(at) || Number.isNaN(Date.parse(at)) || !isUuid(id)) return null;
    out[kind] = { at, id: id.toLowerCase() };
  }
  for (const kind of LATER_KINDS) {
    if (out[kind]) continue;
    const oldest = SYNC_KINDS.filter((k) => !LATER_KINDS.has(k)).map((k) => out[k]!).sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))[0];
    out[kind] = { at: oldest.at, id: MIN_ID };
  }
  return out as SyncPositions;
}
