import type { AuthedContext } from '../../core/context.js';
import { fieldError } from '../../core/errors.js';
import { notificationsChangedAfter } from '../notifications/notifications.queries.js';
import { serializeNotification, type NotificationBody } from '../notifications/notifications.serializer.js';
import { messagesCreatedAfter } from '../messages/messages.queries.js';
import { serializeMessage, type MessageBody } from '../messages/messages.serializer.js';
import { ordersChangedAfter } from '../stores/orders.queries.js';
import { serializeOrder, type OrderBody } from '../stores/orders.serializer.js';
import type { PostBody } from '../posts/posts.serializer.js';
import { postsChangedAfter } from './sync-posts.js';
import { deletionsAfter, watchedPostIds, type DeletionBody } from './sync-deletions.js';
import { retentionStart } from '../deletions/retention.js';
import { syncRooms } from './sync-scope.js';
import { decodeCursor, encodeCursor, positionsFromSince, SYNC_KINDS, type SyncKind, type SyncPosition, type SyncPositions } from './sync-cursor.js';

/** At most this many items of each kind per answer (DESIGN.md section 5). */
export const SYNC_PAGE_SIZE = 100;

/**
 * A row is stamped before its transaction commits, so a row stamped earlier may become visible after a later
 * one was handed out. The last page's cursor therefore stays this far behind the clock: using it again may
 * repeat the newest items (clients keep items by id), never skip one that committed late.
 */
export const LATE_COMMIT_MARGIN_MS = 5_000;
let lateCommitMarginMs = LATE_COMMIT_MARGIN_MS;

/** Tests only: compare answers made at different instants (0: every cursor is exact); no argument restores it. */
export function useLateCommitMargin(ms: number = LATE_COMMIT_MARGIN_MS): void {
  lateCommitMarginMs = ms;
}

export interface SyncBody {
  notifications: NotificationBody[];
  messages: MessageBody[];
  orders: OrderBody[];
  posts: PostBody[];
  deleted: DeletionBody[];
  /** `since` is older than the deletions kept: some may be missing from `deleted`, so reload rather than catch up. */
  full_refresh: boolean;
  has_more: boolean;
  cursor: string;
}

interface Page<T> {
  items: T[];
  last: SyncPosition | null;
  more: boolean;
}

/**
 * Fetch one more than a page: the extra row only says that there is more. A row whose item is gone by the time
 * it is loaded (null) still moves the position: the next page starts after it.
 */
function pageOf<R extends { position: SyncPosition }, T>(rows: R[], pick: (row: R) => T | null): Page<T> {
  const more = rows.length > SYNC_PAGE_SIZE;
  const kept = rows.slice(0, SYNC_PAGE_SIZE);
  return { items: kept.map(pick).filter((item): item is T => item !== null), last: kept.length ? kept[kept.length - 1].position : null, more };
}

const compare = (a: SyncPosition, b: SyncPosition) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * realtime.sync: everything of the caller's changed after `since` (or after the positions of `cursor`), oldest
 * first by (changed at, id), at most SYNC_PAGE_SIZE of each kind. `has_more` says some kind was cut: call again
 * with `cursor` until it is false.
 */
export async function syncFor(ctx: AuthedContext, input: { since?: Date; cursor?: string; locations?: string[]; communities?: string[] }): Promise<SyncBody> {
  let start: SyncPositions;
  if (input.cursor !== undefined) {
    const decoded = decodeCursor(input.cursor);
    if (!decoded) throw fieldError('cursor', 'Invalid cursor.');
    start = decoded;
  } else if (input.since !== undefined) {
    start = positionsFromSince(input.since);
  } else {
    throw fieldError('since', 'This field is required.');
  }
  const userId = ctx.user.id;
  const fetch = SYNC_PAGE_SIZE + 1;
  const rooms = await syncRooms(ctx, input);
  // One statement per kind, at once on the pool (outside a transaction; the embedded database queues them).
  const [notificationRows, messageRows, orderRows, postRows, deletionRows] = await Promise.all([
    notificationsChangedAfter(userId, start.notifications, fetch),
    messagesCreatedAfter(userId, start.messages, fetch),
    ordersChangedAfter(userId, start.orders, fetch),
    postsChangedAfter(rooms, start.posts, fetch, ctx),
    deletionsAfter(userId, { ...rooms, postIds: watchedPostIds(ctx.subscriptions) }, start.deleted, fetch),
  ]);
  const notifications = pageOf(notificationRows, (r) => serializeNotification(r.notification, ctx));
  const messages = pageOf(messageRows, (r) => serializeMessage(r.message, ctx));
  const orders = pageOf(orderRows, (r) => serializeOrder(r.order));
  const posts = pageOf(postRows, (r) => r.post);
  const deleted = pageOf(deletionRows, (r) => r.deletion);
  const fullRefresh = start.deleted.at < retentionStart().toISOString().replace(/Z$/, '000Z');

  const pages: Record<SyncKind, Page<unknown>> = { notifications, messages, orders, posts, deleted };
  const hasMore = SYNC_KINDS.some((k) => pages[k].more);
  const next = {} as SyncPositions;
  const settled: SyncPosition = { at: new Date(Date.now() - lateCommitMarginMs).toISOString().replace(/Z$/, '000Z'), id: '00000000-0000-0000-0000-000000000000' };
  for (const kind of SYNC_KINDS) {
    let position = pages[kind].last ?? start[kind];
    // While paging (has_more) every position is exact, so pages neither repeat nor skip; the last page's
    // positions stay behind the clock (LATE_COMMIT_MARGIN_MS), also when `since` was ahead of it (a client's
    // clock): a cursor never points past rows that may still appear.
    if (!hasMore && compare(position, settled) > 0) position = settled;
    next[kind] = position;
  }
  return {
    notifications: notifications.items,
    messages: messages.items,
    orders: orders.items,
    posts: posts.items,
    deleted: deleted.items,
    full_refresh: fullRefresh,
    has_more: hasMore,
    cursor: encodeCursor(next),
  };
}
