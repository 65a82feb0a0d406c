import { sql } from 'drizzle-orm';
import type { JobDefinition } from '../core/job-definition.js';
import { platform } from './index.js';
import { outboxClock } from './outbox.js';

/**
 * Outbox rows given up (`failed_at`: no retry left, or the handler's GiveUp) stay for the operator to see
 * (`hyperlocal_outbox_rows{state="failed"}`, `last_error`) for OUTBOX_GIVEN_UP_RETENTION_DAYS days (a setting, default
 * GIVEN_UP_RETENTION_DAYS), then this job deletes them (index outbox_given_up_idx, migration 0031).
 * Only given-up rows: a queued or leased row is work still to do. Idempotent.
 */
/** The default of OUTBOX_GIVEN_UP_RETENTION_DAYS. */
export const GIVEN_UP_RETENTION_DAYS = 30;
const BATCH = 1000;

export async function deleteGivenUpOutboxRows(now = outboxClock.now(), retentionDays = platform.config.OUTBOX_GIVEN_UP_RETENTION_DAYS): Promise<{ deleted: number }> {
  const before = new Date(now.getTime() - retentionDays * 24 * 3600_000).toISOString();
  let deleted = 0;
  for (;;) {
    const result = await platform.db.execute(sql`
      DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE failed_at < ${before}::timestamptz LIMIT ${BATCH})`);
    deleted += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < BATCH) return { deleted };
  }
}

export const outboxGivenUpCleanupJob: JobDefinition = {
  name: 'outbox.given_up_cleanup',
  schedule: '41 3 * * *',
  run: () => deleteGivenUpOutboxRows(),
};
