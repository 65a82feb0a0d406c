/**
 * What the app's handlers were already given, by kind, id and version (keysOf below): a catch-up
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

  delete(key: string): void {
    this.keys.delete(key);
  }

  clear(): void {
    this.keys.clear();
  }
}

/** The kinds realtime.sync replays, and the events that carry them live. */
export const REPLAYED_EVENTS = ['post:created', 'post:updated', 'post:deleted', 'message:created', 'notification:created', 'notification:updated', 'order:created', 'order:updated'] as const;
export type ReplayedEvent = (typeof REPLAYED_EVENTS)[number];

/**
 * Every key names the kind, the id and the version of what was delivered: `updated_at` for what can change or come
 * back (a post restored by moderation comes again with a later `updated_at`, a notification or an order changes),
 * `deleted_at` for a deletion (a post hidden, restored, then hidden again is deleted twice). A notification or an
 * order, and a post, also keeps a key of its id alone, so that a catch-up tells a new one (`:created`) from a changed
 * one (`:updated`; a post edited by its author, DESIGN.md section 13). A live `post:updated` marks the same version
 * key as a `post:created` of that version: an edit heard live is not replayed again.
 *
 * A post deleted live (`post:deleted {id}`) carries no `deleted_at`, so its deletion is kept as the post's state: the
 * key `deleted:post:<id>` says "the handlers were told this post is gone". The same deletion replayed later (with
 * its `deleted_at`) is then known; a later version of the post delivered as `post:created` (it came back) takes that
 * key away, so the next deletion is new again.
 */
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A post deletion's keys: the post's "gone" state and, when known, this deletion's own version. */
export function postDeletionKeys(id: string, deletedAt?: unknown): string[] {
  const at = text(deletedAt);
  return at ? [postGone(id), `deleted:post:${id}@${at}`] : [postGone(id)];
}

const postGone = (id: string) => `deleted:post:${id}`;

/** The keys a delivered event marks as seen (see above); none for what is never replayed. */
export function keysOf(event: string, payload: unknown): string[] {
  const item = payload as { id?: unknown; updated_at?: unknown; created_at?: unknown; deleted_at?: unknown; type?: unknown } | null;
  if (!item || typeof item !== 'object' || typeof item.id !== 'string') return [];
  // Only strings go into a key: a payload's other values are not trusted to turn into text.
  const version = text(item.updated_at);
  switch (event) {
    case 'post:created':
    case 'post:updated':
      return [`post:${item.id}`, `post:${item.id}@${version}`];
    case 'post:deleted':
      return postDeletionKeys(item.id, item.deleted_at);
    case 'deleted':
      return typeof item.type === 'string' ? [`deleted:${item.type}:${item.id}@${text(item.deleted_at)}`] : [];
    case 'message:created':
      // A message never changes: its id is its version.
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
export function alreadySeen(seen: SeenSet, event: string, payload: unknown, keys = keysOf(event, payload)): boolean {
  if (keys.length === 0) return false;
  // A post deletion is known by the post's "gone" state or by its own version.
  if (event === 'post:deleted') return keys.some((key) => seen.has(key));
  // Otherwise the last key is the most specific one: a changed order is new even though its id is known.
  return seen.has(keys[keys.length - 1]);
}

/** Remember what was delivered. A post delivered alive is no longer gone: its next deletion is new. */
export function markSeen(seen: SeenSet, event: string, payload: unknown, keys = keysOf(event, payload)): void {
  for (const key of keys) seen.add(key);
  const id = (payload as { id?: unknown } | null)?.id;
  if (event === 'post:created' && typeof id === 'string') seen.delete(postGone(id));
}
