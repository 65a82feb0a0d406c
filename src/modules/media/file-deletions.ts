import { sql, type SQL } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import type { DbOrTx } from '../../platform/db.js';

/**
 * Stored files whose rows a transaction removes (migration 0022, `file_deletions`). Storage is not transactional, so
 * the keys are queued in the transaction that removes the rows, and deleted from storage only once it committed: a
 * rolled-back removal deletes no file, a committed one always leaves its keys behind to work off. Queued with one
 * statement however many files (an account with 50,000 image posts), and worked off in batches.
 */

/** Queue the keys a query yields (its only column, any name); NULLs are skipped. */
export async function queueFileDeletionsFrom(tx: DbOrTx, keys: SQL): Promise<void> {
  await tx.execute(sql`INSERT INTO file_deletions (key) SELECT k FROM (${keys}) AS queued(k) WHERE k IS NOT NULL`);
}

/** Queue the given keys; null and undefined are skipped. */
export async function queueFileDeletions(tx: DbOrTx, keys: ReadonlyArray<string | null | undefined>): Promise<void> {
  const present = keys.filter((k): k is string => Boolean(k));
  if (!present.length) return;
  await tx.execute(sql`INSERT INTO file_deletions (key) SELECT unnest(${sql.param(present)}::text[])`);
}

const BATCH = 200;
/** A key that failed this often is left for a person to look at (logged), instead of being tried forever. */
export const MAX_ATTEMPTS = 10;
/** Storage deletions running at once: enough to hide S3's latency, few enough not to flood it. */
const PARALLEL = 8;

/**
 * Delete queued files from storage and their rows, oldest first, each key tried once per run (a run never loops on
 * a key that keeps failing). Safe to run twice at once (after a commit and from the job): deleting a file that is
 * already gone is not an error.
 */
export async function drainFileDeletions(): Promise<{ deleted: number; failed: number }> {
  let after = 0;
  let deleted = 0;
  let failed = 0;
  for (;;) {
    const { rows } = await platform.db.execute<{ id: number; key: string }>(sql`
      SELECT id, key FROM file_deletions
      WHERE id > ${after} AND attempts < ${MAX_ATTEMPTS}
      ORDER BY id LIMIT ${BATCH}`);
    if (!rows.length) return { deleted, failed };
    after = Number(rows[rows.length - 1].id);
    const done: number[] = [];
    const missed: number[] = [];
    for (let i = 0; i < rows.length; i += PARALLEL) {
      await Promise.all(
        rows.slice(i, i + PARALLEL).map(async (row) => {
          try {
            await platform.storage.delete(row.key);
            done.push(Number(row.id));
          } catch (err) {
            platform.log.warn({ err, key: row.key }, 'could not delete a stored file; it stays queued');
            missed.push(Number(row.id));
          }
        }),
      );
    }
    if (done.length) await platform.db.execute(sql`DELETE FROM file_deletions WHERE id = ANY(${sql.param(done)}::bigint[])`);
    if (missed.length) await platform.db.execute(sql`UPDATE file_deletions SET attempts = attempts + 1 WHERE id = ANY(${sql.param(missed)}::bigint[])`);
    deleted += done.length;
    failed += missed.length;
    if (rows.length < BATCH) return { deleted, failed };
  }
}

/**
 * After the commit that queued files: work them off without holding up the answer (an account's files may take
 * minutes on S3). What this misses (the process ends, storage is away) the job picks up.
 */
export function drainFileDeletionsSoon(): void {
  void drainFileDeletions().catch((err) => platform.log.warn({ err }, 'stored files could not be deleted now; the job retries'));
}
