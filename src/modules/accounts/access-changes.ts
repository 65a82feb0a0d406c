import { platform } from '../../platform/index.js';
import type { DbOrTx } from '../../platform/db.js';
import type { PendingEvents } from '../../core/events.js';
import { accessChanges } from '../../models/index.js';

/**
 * A change of a user's access (a session ended, every session ended, deactivation, rights changed) is written
 * to `access_changes` in the transaction that makes it, and announced after commit (`user.access_changed`).
 * The announcement reaches every node in milliseconds but may be lost (Redis drops it, the process dies between
 * commit and publish); the row cannot be: every node reads the recent rows about once a second
 * (realtime/access-change-poll.ts), which bounds how long any node keeps a changed caller's cached access.
 */
export async function recordAccessChange(db: DbOrTx, events: PendingEvents, userId: string): Promise<void> {
  await db.insert(accessChanges).values({ userId });
  events.add('user.access_changed', { userId });
}

export interface AccessChange {
  id: number;
  userId: string;
  changedAt: Date;
}

export interface AccessChangesRead {
  /** The database's clock when the read began: rows committed after it were not seen. */
  readAt: Date;
  changes: AccessChange[];
}

/**
 * The changes written after `since` (when null: in the last `lookbackMs`), and when this read began, both by
 * the database's clock. One statement a poll, whatever the number of changes or users; the aggregate answers
 * one row even when nothing changed.
 */
export async function readAccessChangesSince(since: Date | null, lookbackMs: number): Promise<AccessChangesRead> {
  const { rows } = await platform.database.pool.query<{ read_at: Date; changes: Array<{ id: number; user_id: string; changed_at: string }> }>(
    `SELECT now() AS read_at,
       coalesce(json_agg(json_build_object('id', id, 'user_id', user_id, 'changed_at', changed_at) ORDER BY id), '[]') AS changes
     FROM access_changes WHERE changed_at > coalesce($1::timestamptz, now() - make_interval(secs => $2::double precision / 1000))`,
    [since, lookbackMs],
  );
  const [row] = rows;
  return {
    readAt: row.read_at,
    changes: row.changes.map((c) => ({ id: Number(c.id), userId: c.user_id, changedAt: new Date(c.changed_at) })),
  };
}
