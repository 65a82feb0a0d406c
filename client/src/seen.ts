/**
 * What the app's handlers were already given, by kind and id (and version, for things that change): a catch-up
 * delivers only what is not here, and a live event that repeats a caught-up one is dropped. Bounded: the oldest
 * keys go first, and a catch-up only ever reaches back a few seconds before the last thing heard.
 */
export class SeenSet {
  private readonly keys = new Set<string>();

  constructor(private readonly limit = 10_000) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > this.limit) this.keys.delete(this.keys.values().next().value as string);
  }

  clear(): void {
    this.keys.clear();
  }
}

/** The kinds realtime.sync replays, and the events that carry them live. */
export const REPLAYED_EVENTS = ['post:created', 'post:deleted', 'message:created', 'notification:created', 'notification:updated', 'order:created', 'order:updated'] as const;
export type ReplayedEvent = (typeof REPLAYED_EVENTS)[number];

interface Versioned {
  id: string;
  updated_at?: string;
}

/**
 * The keys a delivered event marks as seen. A notification or an order is "created" once (its id) and then "changed"
 * at each updated_at; a post or a message is one item; a deletion is one item.
 */
export function keysOf(event: string, payload: unknown): string[] {
  const item = payload as Versioned | null;
  if (!item || typeof item !== 'object' || typeof item.id !== 'string') return [];
  // Only strings go into a key: a payload's other values are not trusted to turn into text.
  const version = typeof item.updated_at === 'string' ? item.updated_at : '';
  const type = (item as { type?: unknown }).type;
  switch (event) {
    case 'post:created':
      return [`post:${item.id}`];
    case 'post:deleted':
      return [`deleted:post:${item.id}`];
    case 'deleted':
      return typeof type === 'string' ? [`deleted:${type}:${item.id}`] : [];
    case 'message:created':
      return [`message:${item.id}`];
    case 'notification:created':
    case 'notification:updated':
      return [`notification:${item.id}`, `notification:${item.id}@${version}`];
    case 'order:created':
    case 'order:updated':
      return [`order:${item.id}`, `order:${item.id}@${version}`];
    default:
      return [];
  }
}

/** Whether a live event repeats something the handlers already have (only replayed kinds can). */
export function alreadySeen(seen: SeenSet, event: string, payload: unknown): boolean {
  const keys = keysOf(event, payload);
  // The last key is the most specific one: a changed order is new even though its id is known.
  return keys.length > 0 && seen.has(keys[keys.length - 1]);
}
