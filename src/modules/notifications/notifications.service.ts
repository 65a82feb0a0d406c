import { and, eq, sql, type SQL } from 'drizzle-orm';
import { pushesQueued, pushOutboxRows } from '../push/push.outbox.js';
import type { RequestContext, AuthedContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import type { PendingEvents } from '../../core/events.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { notifications, users, type NotificationRow, type NotificationType } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction, type DbOrTx } from '../../platform/db.js';
import { findNotification, listNotifications } from './notifications.queries.js';
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
 * Notify many users of one thing: `notifyEach` with one item per recipient, the shared fields sent once (one array of
 * recipients, not six arrays as long). Duplicate ids are notified once; answers the bodies in the order of first
 * appearance of each recipient (skipped ones left out).
 */
export async function notifyMany(db: DbOrTx, events: PendingEvents, recipientIds: readonly string[], n: FanOutNotification): Promise<NotificationBody[]> {
  const recipients = [...new Set(recipientIds)].filter((id) => id !== n.actorId);
  if (!recipients.length) return [];
  return insertNotifications(db, events, sql`
    SELECT gen_random_uuid() AS id, r.recipient, ${n.actorId ?? null}::uuid AS actor, ${n.type}::text AS type,
           ${n.targetId ?? null}::uuid AS target_id, ${n.targetType ?? null}::text AS target_type, ${n.message}::text AS message, r.ord
    FROM unnest(${sql.param(recipients)}::uuid[]) WITH ORDINALITY AS r(recipient, ord)`);
}

/**
 * Notifications, each with its own recipient, actor, target and words, set-based (see insertNotifications). Nobody is
 * told of their own action. Answers the bodies in the order of `items`, skipped ones left out.
 */
export async function notifyEach(db: DbOrTx, events: PendingEvents, items: readonly NewNotification[]): Promise<NotificationBody[]> {
  const wanted = items.filter((n) => n.recipientId !== n.actorId);
  if (!wanted.length) return [];
  const column = <T>(pick: (n: NewNotification) => T) => sql.param(wanted.map(pick));
  return insertNotifications(db, events, sql`
    SELECT gen_random_uuid() AS id, n.recipient, n.actor, n.type, n.target_id, n.target_type, n.message, n.ord
    FROM unnest(${column((n) => n.recipientId)}::uuid[], ${column((n) => n.actorId ?? null)}::uuid[], ${column((n) => n.type)}::text[],
                ${column((n) => n.targetId ?? null)}::uuid[], ${column((n) => n.targetType ?? null)}::text[], ${column((n) => n.message)}::text[])
         WITH ORDINALITY AS n(recipient, actor, type, target_id, target_type, message, ord)`);
}

interface InsertedNotification extends Record<string, unknown> {
  id: string;
  user_id: string;
  actor_id: string | null;
  notification_type: NotificationRow['notificationType'];
  target_id: string | null;
  target_type: string | null;
  message: string;
  is_read: boolean;
  /** As the driver gives timestamptz through Drizzle: text (e.g. `2026-11-27 18:20:00.123456+00`). */
  created_at: string;
  updated_at: string;
  actor_username: string | null;
  actor_display_name: string | null;
  actor_picture: string | null;
  pushes: number;
}

/**
 * One statement for any number of notifications: the rows of `source` (id, recipient, actor, type, target_id,
 * target_type, message, ord) inserted, their push outbox rows written (push.outbox.ts, `pushOutboxRows`), and the new
 * rows read back with their actors, in `ord` order. A statement, not three (insert, pushes, read back), and its rows
 * read without an ORM: a community's fan-out writes 2,000 of them per batch while requests wait for the same thread.
 * Recipients that do not exist (deleted meanwhile) are skipped rather than failing the write that notifies, and so
 * are recipients who must not hear from the actor (a block either way, or a mute by the recipient:
 * src/modules/safety). One `notification.created` per row joins the pending events, so each recipient's devices hear
 * of it after the commit.
 */
async function insertNotifications(db: DbOrTx, events: PendingEvents, source: SQL): Promise<NotificationBody[]> {
  const { rows } = await db.execute<InsertedNotification>(sql`
    WITH n AS MATERIALIZED (${source}),
    inserted AS (
      INSERT INTO ${notifications} (id, user_id, actor_id, notification_type, target_id, target_type, message)
      SELECT n.id, n.recipient, n.actor, n.type, n.target_id, n.target_type, n.message
      FROM n
      JOIN ${users} u ON u.id = n.recipient
      WHERE n.actor IS NULL OR ${notHiddenFrom(sql`n.recipient`, sql`n.actor`)}
      RETURNING id, user_id, actor_id, notification_type, target_id, target_type, message, is_read, created_at, updated_at),
    pushes AS (${pushOutboxRows(sql`inserted`)})
    SELECT i.*, a.username AS actor_username, a.display_name AS actor_display_name, a.profile_picture AS actor_picture,
           (SELECT count(*)::int FROM pushes) AS pushes
    FROM n
    JOIN inserted i ON i.id = n.id
    LEFT JOIN (SELECT id, username, display_name, profile_picture FROM ${users} WHERE id IN (SELECT actor FROM n)) a ON a.id = i.actor_id
    ORDER BY n.ord`);
  if (!rows.length) return [];
  pushesQueued(rows[0].pushes);
  const baseUrl = { baseUrl: serverBaseUrl() };
  return rows.map((row) => {
    const body = serializeNotification(
      {
        id: row.id,
        userId: row.user_id,
        actorId: row.actor_id,
        notificationType: row.notification_type,
        targetId: row.target_id,
        targetType: row.target_type,
        message: row.message,
        isRead: row.is_read,
        createdAt: new Date(row.created_at),
        updatedAt: new Date(row.updated_at),
        actor: row.actor_id && row.actor_username ? { id: row.actor_id, username: row.actor_username, displayName: row.actor_display_name!, profilePicture: row.actor_picture } : null,
      },
      baseUrl,
    );
    events.add('notification.created', { userId: row.user_id, notification: body });
    return body;
  });
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
