import { and, eq, sql } from 'drizzle-orm';
import { enqueuePushes } from '../push/push.outbox.js';
import type { RequestContext, AuthedContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import type { PendingEvents } from '../../core/events.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { notifications, users, type NotificationType } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction, type DbOrTx } from '../../platform/db.js';
import { findNotification, findNotificationsByIds, listNotifications } from './notifications.queries.js';
import { serializeNotification, type NotificationBody } from './notifications.serializer.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import { notHiddenFrom } from '../policy/visibility.js';

declare module '../../core/events.js' {
  interface DomainEventMap {
    'notification.created': { userId: string; notification: NotificationBody };
    'notification.updated': { userId: string; notification: NotificationBody };
  }
}

export interface NewNotification {
  recipientId: string;
  actorId?: string | null;
  type: NotificationType;
  targetId?: string | null;
  targetType?: string | null;
  message: string;
}

/** A notification for several recipients at once (a new post in a community, mentions, ...). */
export type FanOutNotification = Omit<NewNotification, 'recipientId'>;

/**
 * The one way every module notifies a user. Call it inside the transaction of the write that caused
 * it (pass `tx` and its pending events): the row commits with that write and the push follows the commit.
 * Nobody is notified of their own actions. One recipient of `notifyMany`.
 */
export async function notify(db: DbOrTx, events: PendingEvents, n: NewNotification, _requestCtx?: Pick<RequestContext, 'baseUrl'>): Promise<NotificationBody | null> {
  const { recipientId, ...notification } = n;
  const [body] = await notifyMany(db, events, [recipientId], notification);
  return body ?? null;
}

/**
 * Notify many users of one thing: `notifyEach` with one item per recipient. Duplicate ids are notified once; answers
 * the bodies in the order of first appearance of each recipient (skipped ones left out).
 */
export function notifyMany(db: DbOrTx, events: PendingEvents, recipientIds: readonly string[], n: FanOutNotification): Promise<NotificationBody[]> {
  return notifyEach(db, events, [...new Set(recipientIds)].map((recipientId) => ({ ...n, recipientId })));
}

/**
 * Notifications, each with its own recipient, actor, target and words, set-based: one INSERT ... SELECT over unnest
 * (ORDINALITY keeps the order), whose rows are read back in one query (the actor joined); one `notification.created`
 * per row joins the pending events, so each recipient's devices hear of it after the commit. Nobody is told of their
 * own action; recipients that do not exist (deleted meanwhile) are skipped rather than failing the write that
 * notifies, and so are recipients who must not hear from the actor (a block either way, or a mute by the recipient:
 * src/modules/safety). Answers the bodies in the order of `items`, skipped ones left out.
 */
export async function notifyEach(db: DbOrTx, events: PendingEvents, items: readonly NewNotification[]): Promise<NotificationBody[]> {
  const wanted = items.filter((n) => n.recipientId !== n.actorId);
  if (!wanted.length) return [];
  const column = <T>(pick: (n: NewNotification) => T) => sql.param(wanted.map(pick));
  const inserted = await db.execute<{ id: string }>(sql`
    INSERT INTO ${notifications} (user_id, actor_id, notification_type, target_id, target_type, message)
    SELECT n.recipient, n.actor, n.type, n.target_id, n.target_type, n.message
    FROM unnest(${column((n) => n.recipientId)}::uuid[], ${column((n) => n.actorId ?? null)}::uuid[], ${column((n) => n.type)}::text[],
                ${column((n) => n.targetId ?? null)}::uuid[], ${column((n) => n.targetType ?? null)}::text[], ${column((n) => n.message)}::text[])
         WITH ORDINALITY AS n(recipient, actor, type, target_id, target_type, message, ord)
    JOIN ${users} u ON u.id = n.recipient
    WHERE n.actor IS NULL OR ${notHiddenFrom(sql`n.recipient`, sql`n.actor`)}
    ORDER BY n.ord
    RETURNING id`);
  // Each recipient's devices: one push outbox row per (notification, device), in this same transaction.
  await enqueuePushes(db, inserted.rows.map((r) => r.id));
  const rows = await findNotificationsByIds(inserted.rows.map((r) => r.id), db);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const bodies: NotificationBody[] = [];
  for (const { id } of inserted.rows) {
    const row = byId.get(id);
    if (!row) continue;
    const body = serializeNotification(row, { baseUrl: serverBaseUrl() });
    events.add('notification.created', { userId: row.userId, notification: body });
    bodies.push(body);
  }
  return bodies;
}

export async function listMyNotifications(ctx: AuthedContext, input: { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const { count, rows } = await listNotifications(ctx.user.id, params.limit, params.offset);
  return paginated(ctx, '/api/notifications/', params, count, rows.map((n) => serializeNotification(n, ctx)));
}

/** Another user's notification is 404, not 403: its existence is none of the caller's business. */
export async function setNotificationRead(ctx: AuthedContext, id: string, isRead: boolean): Promise<NotificationBody> {
  return transaction(platform.db, async (tx, events) => {
    const [updated] = await tx
      .update(notifications)
      .set({ isRead, updatedAt: new Date() })
      .where(and(eq(notifications.id, id), eq(notifications.userId, ctx.user.id)))
      .returning({ id: notifications.id });
    if (!updated) throw notFound();
    const row = (await findNotification(id, tx))!;
    // The caller's answer follows its own Host; the copy pushed to its other devices uses the server's base.
    events.add('notification.updated', { userId: ctx.user.id, notification: serializeNotification(row, { baseUrl: serverBaseUrl() }) });
    return serializeNotification(row, ctx);
  });
}
