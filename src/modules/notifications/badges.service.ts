import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';

declare module '../../core/events.js' {
  interface DomainEventMap {
    /** Every notification of the person was marked read: each of their sockets clears its badge. */
    'notification.read_all': { userId: string; read_at: string };
  }
}

/** The badge (DESIGN.md section 10): the caller's unread notifications. Every push carries the same count. */
export async function unreadCount(ctx: AuthedContext): Promise<{ count: number }> {
  const { rows } = await platform.db.execute<{ count: number }>(sql`SELECT count(*)::int AS count FROM notifications WHERE user_id = ${ctx.user.id}::uuid AND NOT is_read`);
  return { count: rows[0].count };
}

/**
 * Mark every notification of the caller read: `{updated}` (how many were unread), `notification:read_all {read_at}`
 * to all their sockets after the commit; the badge of the next push counts from there. Pushes still queued for
 * notifications read now are not sent (the push handler skips a read notification).
 */
export async function readAll(ctx: AuthedContext): Promise<{ updated: number }> {
  return transaction(platform.db, async (tx, events) => {
    const readAt = new Date();
    const { rows } = await tx.execute<{ n: number }>(sql`
      WITH changed AS (
        UPDATE notifications SET is_read = true, updated_at = ${readAt.toISOString()}::timestamptz
        WHERE user_id = ${ctx.user.id}::uuid AND NOT is_read RETURNING 1)
      SELECT count(*)::int AS n FROM changed`);
    events.add('notification.read_all', { userId: ctx.user.id, read_at: readAt.toISOString() });
    return { updated: rows[0].n };
  });
}
