import { and, desc, eq, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { platform } from '../../platform/index.js';
import { currentDb, type DbOrTx } from '../../platform/db.js';
import { notifications, users } from '../../models/index.js';
import type { NotificationWithActor } from './notifications.serializer.js';

const actors = alias(users, 'actor');

const selectWithActor = (db: DbOrTx) =>
  db
    .select({
      n: notifications,
      actorId: actors.id,
      actorUsername: actors.username,
      actorDisplayName: actors.displayName,
      actorPicture: actors.profilePicture,
    })
    .from(notifications)
    .leftJoin(actors, eq(notifications.actorId, actors.id));

type Joined = Awaited<ReturnType<ReturnType<typeof selectWithActor>['execute']>>[number];
const toNotification = (r: Joined): NotificationWithActor => ({
  ...r.n,
  actor: r.actorId ? { id: r.actorId, username: r.actorUsername!, displayName: r.actorDisplayName!, profilePicture: r.actorPicture } : null,
});

export async function findNotification(id: string, db: DbOrTx = currentDb()): Promise<NotificationWithActor | null> {
  const [row] = await selectWithActor(db).where(eq(notifications.id, id)).limit(1);
  return row ? toNotification(row) : null;
}

export async function listNotifications(userId: string, limit: number, offset: number): Promise<{ count: number; rows: NotificationWithActor[] }> {
  const [{ count }] = await platform.db.select({ count: sql<number>`count(*)::int` }).from(notifications).where(eq(notifications.userId, userId));
  const rows = await selectWithActor(platform.db)
    .where(eq(notifications.userId, userId))
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(limit)
    .offset(offset);
  return { count, rows: rows.map(toNotification) };
}

/**
 * The recipient's notifications changed after a (updated_at, id) position, oldest first (realtime.sync), each with
 * its exact position; one range scan of notifications_user_changed_idx (0015).
 */
export async function notificationsChangedAfter(
  userId: string,
  after: { at: string; id: string },
  limit: number,
): Promise<Array<{ notification: NotificationWithActor; position: { at: string; id: string } }>> {
  const rows = await currentDb()
    .select({
      n: notifications,
      actorId: actors.id,
      actorUsername: actors.username,
      actorDisplayName: actors.displayName,
      actorPicture: actors.profilePicture,
      at: sql<string>`to_char(${notifications.updatedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    })
    .from(notifications)
    .leftJoin(actors, eq(notifications.actorId, actors.id))
    .where(and(eq(notifications.userId, userId), sql`(${notifications.updatedAt}, ${notifications.id}) > (${after.at}::timestamptz, ${after.id}::uuid)`))
    .orderBy(notifications.updatedAt, notifications.id)
    .limit(limit);
  return rows.map((r) => ({ notification: toNotification(r), position: { at: r.at, id: r.n.id } }));
}
