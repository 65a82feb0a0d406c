import { sql } from 'drizzle-orm';
import type { JobDefinition } from '../../core/job-definition.js';
import { platform } from '../../platform/index.js';
import { outboxClock } from '../../platform/outbox.js';
import { DISABLE_AFTER_FAILING_MS, FAILING_DAYS_REASON, disableWebhook } from './webhooks.outbox.js';

/**
 * Webhook housekeeping (docs/webhooks.md, "Retention"), hourly:
 * - a webhook whose deliveries have failed for 3 days is disabled (its owner told) even when no attempt comes to
 *   notice it: the last retry of a delivery is about 28 h after its first attempt, so a webhook that failed once and
 *   got no new event would otherwise stay on for ever;
 * - deliveries whose last attempt (or creation) is older than WEBHOOK_DELIVERY_RETENTION_DAYS days (a setting,
 *   default DELIVERY_RETENTION_DAYS) are deleted, pending ones never (a redelivery may have made an old one pending
 *   again); index webhook_deliveries_done_age_idx (migration 0031), whose expression is this statement's.
 * Idempotent: a second run finds nothing more. Times by `outboxClock`, as the deliveries are stamped.
 */
/** The default of WEBHOOK_DELIVERY_RETENTION_DAYS. */
export const DELIVERY_RETENTION_DAYS = 30;
const BATCH = 1000;

export async function disableLongFailingWebhooks(now = outboxClock.now()): Promise<{ disabled: number }> {
  const since = new Date(now.getTime() - DISABLE_AFTER_FAILING_MS).toISOString();
  const { rows } = await platform.db.execute<{ webhook_id: string; owner_id: string; url: string }>(sql`
    SELECT id AS webhook_id, owner_id, url FROM webhooks WHERE is_active AND failing_since <= ${since}::timestamptz`);
  // One at a time, each in its own transaction with its notification (disableWebhook skips one already off).
  for (const webhook of rows) await disableWebhook(webhook, FAILING_DAYS_REASON);
  return { disabled: rows.length };
}

export async function deleteOldDeliveries(now = outboxClock.now(), retentionDays = platform.config.WEBHOOK_DELIVERY_RETENTION_DAYS): Promise<{ deleted: number }> {
  const before = new Date(now.getTime() - retentionDays * 24 * 3600_000).toISOString();
  let deleted = 0;
  for (;;) {
    const result = await platform.db.execute(sql`
      DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM webhook_deliveries
        WHERE status <> 'pending' AND coalesce(last_attempt_at, created_at) < ${before}::timestamptz LIMIT ${BATCH})`);
    deleted += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < BATCH) return { deleted };
  }
}

export const webhooksHousekeepingJob: JobDefinition = {
  name: 'webhooks.housekeeping',
  schedule: '23 * * * *',
  run: async () => ({ ...(await disableLongFailingWebhooks()), ...(await deleteOldDeliveries()) }),
};
