import { sql } from 'drizzle-orm';
import { throttled } from '../../core/errors.js';
import type { Tx } from '../../platform/db.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { defineOutboxHandler, enqueue, outboxClock, type OutboxJob } from '../../platform/outbox.js';
import { notifyMany } from '../notifications/notifications.service.js';

/**
 * Alerts (DESIGN.md section 13): something every neighbour must know now. Only residents of the place post one (an
 * alert goes to its author's own location, never to a community), at most ALERTS_PER_DAY in any 24 hours per person.
 * Every other resident gets an `alert` notification (target: the post), written after the post's commit by the
 * outbox: the post's transaction writes one outbox row, whatever the place's size, and the handler below expands it
 * into the residents in batches of ALERT_FANOUT_BATCH, each batch one transaction. Pushing them (urgency high, also
 * in quiet hours) is the push pipeline's, which pushes every notification created.
 */
export const ALERTS_PER_DAY = 3;
export const ALERT_FANOUT_BATCH = 1000;
const DAY_MS = 86_400_000;

declare module '../../platform/outbox.js' {
  interface OutboxPayloads {
    /** `after_user_id`: the cursor, written into the row by each batch. */
    'posts.alert_fanout': { post_id: string; location_id: string; actor_id: string; message: string; after_user_id?: string };
  }
}

/**
 * In the post's transaction, before it is written: the author's alerts of the last 24 hours, counted under a lock of
 * the author's own (two alerts sent at once are counted one after the other). The fourth is 429, with the seconds
 * until the oldest of the three is a day old.
 */
export async function checkAlertAllowance(tx: Tx, userId: string, now: Date = new Date()): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${'posts.alert:' + userId}, 0))`);
  const since = new Date(now.getTime() - DAY_MS);
  const { rows } = await tx.execute<{ created_at: Date | string }>(sql`
    SELECT created_at FROM posts WHERE user_id = ${userId}::uuid AND post_type = 'alert' AND created_at > ${since.toISOString()}::timestamptz
    ORDER BY created_at DESC LIMIT ${ALERTS_PER_DAY}`);
  if (rows.length < ALERTS_PER_DAY) return;
  const oldest = new Date(rows[rows.length - 1].created_at);
  throw throttled(Math.max(1, (oldest.getTime() + DAY_MS - now.getTime()) / 1000));
}

/** In the post's transaction: one outbox row for the whole place. */
export async function queueAlertFanout(tx: Tx, alert: { postId: string; locationId: string; actorId: string; message: string }): Promise<void> {
  await enqueue(tx, 'posts.alert_fanout', { post_id: alert.postId, location_id: alert.locationId, actor_id: alert.actorId, message: alert.message });
}

const LEASE_MS = 60_000;
const NO_USER = '00000000-0000-0000-0000-000000000000';

/**
 * One batch: under the outbox row's lock, the next residents after the row's cursor (active accounts living in the
 * place, by id) are notified and the cursor moves, in one transaction; the last batch deletes the row. So a batch is
 * written once even when two runners hold the row (a lease ran out): the second waits for the lock and reads the
 * moved cursor, or finds the row gone. Each batch also renews the lease. A post deleted or hidden by moderation
 * meanwhile tells nobody more. True while more may follow.
 */
export async function alertFanoutBatch(jobId: string, payload: { post_id: string; location_id: string; actor_id: string; message: string }, batchSize = ALERT_FANOUT_BATCH): Promise<boolean> {
  return transaction(platform.db, async (tx, events) => {
    const { rows } = await tx.execute<{ after_user_id: string | null }>(sql`
      SELECT payload->>'after_user_id' AS after_user_id FROM outbox WHERE id = ${jobId}::bigint FOR UPDATE`);
    if (!rows[0]) return false;
    const { rows: live } = await tx.execute<{ id: string }>(sql`SELECT id FROM posts WHERE id = ${payload.post_id}::uuid AND hidden_at IS NULL`);
    if (!live.length) {
      await tx.execute(sql`DELETE FROM outbox WHERE id = ${jobId}::bigint`);
      return false;
    }
    const { rows: residents } = await tx.execute<{ id: string }>(sql`
      SELECT id FROM users WHERE location_id = ${payload.location_id}::uuid AND is_active AND location_id IS NOT NULL
        AND id > ${rows[0].after_user_id ?? NO_USER}::uuid
      ORDER BY location_id, id LIMIT ${batchSize}`);
    await notifyMany(tx, events, residents.map((r) => r.id), { actorId: payload.actor_id, type: 'alert', targetType: 'Post', targetId: payload.post_id, message: payload.message });
    if (residents.length < batchSize) {
      await tx.execute(sql`DELETE FROM outbox WHERE id = ${jobId}::bigint`);
      return false;
    }
    const lease = new Date(outboxClock.now().getTime() + LEASE_MS).toISOString();
    await tx.execute(sql`
      UPDATE outbox SET payload = payload || jsonb_build_object('after_user_id', ${residents[residents.length - 1].id}::text), locked_until = ${lease}::timestamptz
      WHERE id = ${jobId}::bigint`);
    return true;
  });
}

export const alertFanoutHandler = defineOutboxHandler({
  kind: 'posts.alert_fanout',
  // One place's fan-out at a time per node: a second alert waits for the first rather than halving its pace, and the
  // node's requests keep most of its event loop and connections.
  maxInFlight: 1,
  leaseMs: LEASE_MS,
  retryDelaysMs: [1_000, 5_000, 30_000, 120_000, 600_000],
  async run(payload, job: OutboxJob) {
    // Between batches the event loop serves what queued behind the batch's 1,000 notification events.
    while (await alertFanoutBatch(job.id, payload)) await new Promise((resolve) => setImmediate(resolve));
  },
});
