import { and, eq } from 'drizzle-orm';
import type { RequestContext, AuthedContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import type { PendingEvents } from '../../core/events.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { notifications, type NotificationType } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction, type DbOrTx } from '../../platform/db.js';
import { findNotification, listNotifications } from './notifications.queries.js';
import { serializeNotification, type NotificationBody } from './notifications.serializer.js';
import { serverBaseUrl } from '../../core/server-base-url.js';

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

/**
 * The one way every module notifies a user. Call it inside the transaction of the write that caused
 * it (pass `tx` and its pending events): the row commits with that write and the push follows the commit.
 * Nobody is notified of their own actions. The notification goes to another user, so its URLs are built on
 * the server's own base, never on the Host header of the request that caused it (the actor's to choose).
 *
 * @param _requestCtx ignored, accepted so that callers may still pass the request's context.
 */
export async function notify(db: DbOrTx, events: PendingEvents, n: NewNotification, _requestCtx?: Pick<RequestContext, 'baseUrl'>): Promise<NotificationBody | null> {
  if (n.actorId && n.actorId === n.recipientId) return null;
  const [row] = await db
    .insert(notifications)
    .values({ userId: n.recipientId, actorId: n.actorId ?? null, notificationType: n.type, targetId: n.targetId ?? null, targetType: n.targetType ?? null, message: n.message })
    .returning({ id: notifications.id });
  const full = await findNotification(row.id, db);
  const body = serializeNotification(full!, { baseUrl: serverBaseUrl() });
  events.add('notification.created', { userId: n.recipientId, notification: body });
  return body;
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
