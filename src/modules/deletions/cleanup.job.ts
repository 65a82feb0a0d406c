import { sql } from 'drizzle-orm';
import type { JobDefinition } from '../../core/job-definition.js';
import { platform } from '../../platform/index.js';
import type { DbOrTx } from '../../platform/db.js';
import { retentionStart } from './retention.js';

/**
 * Drop tombstones and former memberships past the retention, in batches on the deleted_at indexes (no long
 * lock, no huge transaction). Idempotent: a second run, or another node, deletes nothing more.
 */
export async function deleteExpiredDeletions(db: DbOrTx = platform.db, now = Date.now(), batch = 5000): Promise<number> {
  const before = retentionStart(now).toISOString();
  let deleted = 0;
  for (const table of ['deletions', 'deleted_community_members'] as const) {
    for (;;) {
      const { rows } = await db.execute<{ n: number }>(sql`
        WITH gone AS (
          DELETE FROM ${sql.identifier(table)} WHERE ctid IN (
            SELECT ctid FROM ${sql.identifier(table)} WHERE deleted_at < ${before}::timestamptz LIMIT ${batch})
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`);
      deleted += rows[0].n;
      if (rows[0].n < batch) break;
    }
  }
  return deleted;
}

/** Hourly at :25; logged by the job runner with its `{deleted}`. */
export const expiredDeletionsJob: JobDefinition = {
  name: 'deletions.expired',
  schedule: '25 * * * *',
  run: async () => ({ deleted: await deleteExpiredDeletions() }),
};
