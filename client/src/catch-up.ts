import type { Sync } from './generated/api.js';
import { keysOf, postDeletionKeys, type SeenSet } from './seen.js';

/**
 * What a catch-up hands the app's handlers: the items of every realtime.sync page, as the live events that would
 * have carried them, merged into one stream in the order they happened, without what the handlers already have.
 * A message is new once; a post is new at each updated_at (`post:updated` for one the handlers have, edited;
 * `post:created` for one they do not have, or that came back after moderation hid it); a
 * notification or order is new once and then changed at each updated_at; a deletion is new at each deleted_at (a
 * post's as `post:deleted`, a comment's or message's as the client's own `deleted`).
 */
export interface Delivery {
  event: string;
  payload: unknown;
  /** When it happened on the server (ISO): the merge order. */
  at: string;
  /** What it marks as seen once delivered (seen.ts): a replayed post deletion's carry its `deleted_at`, its payload does not. */
  keys: string[];
}

export function deliveriesOf(pages: readonly Sync[], seen: SeenSet): Delivery[] {
  const planned = new Set<string>();
  const known = (key: string) => seen.has(key) || planned.has(key);
  const out: Delivery[] = [];
  const push = (event: string, payload: unknown, at: string, keys: string[]) => {
    for (const key of keys) planned.add(key);
    out.push({ event, payload, at, keys });
  };
  // The keys are the ones a live event of the same item marks as seen (seen.ts): one scheme for both paths.
  const versioned = (kind: 'notification' | 'order', item: { id: string; created_at: string; updated_at: string }) => {
    const keys = keysOf(`${kind}:created`, item);
    const [created, version] = keys;
    if (!known(created)) push(`${kind}:created`, item, item.created_at, keys);
    else if (!known(version)) push(`${kind}:updated`, item, item.updated_at, keys);
  };
  const once = (event: string, item: { id: string }, at: string) => {
    const keys = keysOf(event, item);
    if (keys.length && !keys.some(known)) push(event, item, at, keys);
  };
  const post = (p: { id: string; created_at: string; updated_at: string }) => {
    const keys = keysOf('post:created', p);
    const [had, version] = keys;
    if (known(version)) return;
    // The handlers have this post, alive: this version is an edit. Never had, or told it is gone: it is (back) new.
    if (known(had) && !known(postDeletionKeys(p.id)[0])) push('post:updated', p, p.updated_at, keys);
    else push('post:created', p, p.created_at, keys);
  };
  for (const page of pages) {
    for (const n of page.notifications) versioned('notification', n);
    for (const o of page.orders) versioned('order', o);
    for (const m of page.messages) once('message:created', m, m.created_at);
    for (const p of page.posts) post(p);
    for (const d of page.deleted) {
      // A post's deletion as it is pushed live (post:deleted {id}); a comment's or message's as the client's `deleted`.
      if (d.type === 'post') {
        const keys = postDeletionKeys(d.id, d.deleted_at);
        // Known when the handlers were told the post is gone (live, or earlier in this replay), or of this very deletion.
        if (!keys.some(known)) push('post:deleted', { id: d.id }, d.deleted_at, keys);
      } else once('deleted', d, d.deleted_at);
    }
  }
  // A stable sort: what happened at the same instant keeps the order above.
  return out.map((d, i) => ({ d, i, t: Date.parse(d.at) })).sort((a, b) => a.t - b.t || a.i - b.i).map(({ d }) => d);
}
