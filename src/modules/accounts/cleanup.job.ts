import { sql } from 'drizzle-orm';
import type { JobDefinition } from '../../core/job-definition.js';
import { platform } from '../../platform/index.js';

/**
 * Housekeeping of the accounts tables. Both jobs delete only rows that can no longer mean anything, so a
 * second run (or two nodes running at once) deletes nothing more: they are idempotent.
 * Deletes run in batches, each its own statement, so no run holds many row locks or one long transaction.
 */
const BATCH = 1000;

async function deleteInBatches(statement: (now: Date) => ReturnType<typeof sql>, now: Date): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await platform.db.execute(statement(now));
    const n = result.rowCount ?? 0;
    deleted += n;
    if (n < BATCH) return deleted;
  }
}

/**
 * Password-reset codes past their expiry (10 minutes), used or not: an expired code is refused anyway, and a
 * locked one (five wrong codes) is unlocked only by requesting a new code, which replaces the row.
 */
export async function deleteExpiredPasswordResets(now = new Date()): Promise<{ deleted: number }> {
  const deleted = await deleteInBatches(
    (at) => sql`DELETE FROM password_resets WHERE user_id IN (SELECT user_id FROM password_resets WHERE expires_at < ${at} LIMIT ${BATCH})`,
    now,
  );
  return { deleted };
}

/**
 * Blacklisted (revoked) refresh tokens past their expiry. Until it expires a revoked token is kept, since
 * presenting it again is how reuse is detected (the family is revoked); after it, the token's signature check
 * refuses it before the table is read. Unrevoked tokens stay: they are what keeps a session alive.
 */
export async function deleteExpiredRevokedRefreshTokens(now = new Date()): Promise<{ deleted: number }> {
  const deleted = await deleteInBatches(
    (at) => sql`DELETE FROM refresh_tokens WHERE jti IN (SELECT jti FROM refresh_tokens WHERE revoked_at IS NOT NULL AND expires_at < ${at} LIMIT ${BATCH})`,
    now,
  );
  return { deleted };
}

/**
 * Access changes older than an hour: each node reads a change within seconds of its commit (its poll looks back
 * ten seconds), so an hour-old row can tell nothing to a node that is up; a node that starts caches nothing older.
 */
export const ACCESS_CHANGE_RETENTION_MS = 60 * 60 * 1000;

export async function deleteOldAccessChanges(now = new Date()): Promise<{ deleted: number }> {
  const deleted = await deleteInBatches(
    (at) => sql`DELETE FROM access_changes WHERE id IN (SELECT id FROM access_changes WHERE changed_at < ${at} LIMIT ${BATCH})`,
    new Date(now.getTime() - ACCESS_CHANGE_RETENTION_MS),
  );
  return { deleted };
}

export const expiredPasswordResetsJob: JobDefinition = {
  name: 'accounts.expired_password_resets',
  schedule: '*/15 * * * *',
  run: () => deleteExpiredPasswordResets(),
};

export const expiredRevokedRefreshTokensJob: JobDefinition = {
  name: 'accounts.expired_refresh_tokens',
  schedule: '40 * * * *',
  run: () => deleteExpiredRevokedRefreshTokens(),
};

export const oldAccessChangesJob: JobDefinition = {
  name: 'accounts.old_access_changes',
  schedule: '*/10 * * * *',
  run: () => deleteOldAccessChanges(),
};
