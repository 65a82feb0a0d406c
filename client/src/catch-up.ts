import type { Sync } from './generated/api.js';
import { keysOf, type SeenSet } from './seen.js';

/**
 * What a catch-up hands the app's handlers: the items of every realtime.sync page, as the live events that would
 * have carried them, merged into one stream in the order they happened, without what the handlers already have.
 * A post or message is new once; a notification or order is new once and then changed at each updated_at; a
 * deletion is one item (a post's as `post:deleted`, a comment's or message's as the client's own `deleted`).
 */
export interface Delivery {
  event: string;
  payload: unknown;
  /** When it happened on the server (ISO): the merge order. */
  at: string;
}

export function deliveriesOf(pages: readonly Sync[], seen: SeenSet): Delivery[] {
  const planned = new Set<string>();
  const isNew = (key: string) => !seen.has(key) && !planned.has(key);
  const out: Delivery[] = [];
  const push = (event: string, payload: unknown, at: string, key: string) => {
    planned.add(key);
    out.push({ event, payload, at });
  };
  // The keys are the ones a live event of the same item marks as seen (seen.ts): one scheme for both paths.
  const versioned = (kind: 'notification' | 'order', item: { id: string; created_at: string; updated_at: string }) => {
    const [created, version] = keysOf(`${kind}:created`, item);
    if (isNew(created)) {
      planned.add(created);
      push(`${kind}:created`, item, item.created_at, version);
    } else if (isNew(version)) push(`${kind}:updated`, item, item.updated_at, version);
  };
  const once = (event: string, item: { id: string }, at: string) => {
    const [key] = keysOf(event, item);
    if (key && isNew(key)) push(event, item, at, key);
  };
  for (const page of pages) {
    for (const n of page.notifications) versioned('notification', n);
    for (const o of page.orders) versioned('order', o);
    for (const m of page.messages) once('message:created', m, m.created_at);
    for (const p of page.posts) once('post:created', p, p.created_at);
    for (const d of page.deleted) {
      const [key] = keysOf('deleted', d);
      if (!key || !isNew(key)) continue;
      // A post's deletion as it is pushed live (post:deleted {id}); a comment's or message's as the client's `deleted`.
      if (d.type === 'post') push('post:deleted', { id: d.id }, d.deleted_at, key);
      else push('deleted', d, d.deleted_at, key);
    }
  }
  // A stable sort: what happened at the same instant keeps the order above.
  return out.map((d, i) => ({ d, i, t: Date.parse(d.at) })).sort((a, b) => a.t - b.t || a.i - b.i).map(({ d }) => d);
}
