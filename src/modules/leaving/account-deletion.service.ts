import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { fieldError, notFound } from '../../core/errors.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { verifyPassword } from '../accounts/passwords.js';
import { drainFileDeletionsSoon } from '../media/file-deletions.js';
import { ACCOUNT_DELETION_STEPS } from './account-deletion.steps.js';

export const WRONG_PASSWORD = 'Incorrect password.';

/**
 * A large account's deletion is a few statements over many rows (50,000 posts and what hangs off them): it may run
 * past the service's per-statement limit (DATABASE_STATEMENT_TIMEOUT_MS, sized for requests), so the deletion's own
 * transaction allows this much per statement. PGlite ignores it, as it ignores every statement timeout.
 */
const STATEMENT_TIMEOUT = '5min';

/**
 * `DELETE /api/users/profile/ {password}`: the account is deleted at once, in one transaction in which every module
 * takes its part (account-deletion.steps.ts), then the user row goes, freeing the username and email. Events
 * (`post:deleted`, `order:updated`, the end of every session) are published after the commit; stored files are
 * deleted from storage after it (file-deletions.ts). A wrong password is 400 `{password: [...]}` and changes nothing.
 */
export async function deleteAccount(ctx: AuthedContext, password: string): Promise<void> {
  const userId = ctx.user.id;
  const { rows } = await platform.db.execute<{ password_hash: string }>(sql`SELECT password_hash FROM users WHERE id = ${userId}`);
  if (!rows.length) throw notFound();
  // Checked before the transaction: argon2 takes a while, and no lock should be held meanwhile.
  if (!(await verifyPassword(rows[0].password_hash, password))) throw fieldError('password', WRONG_PASSWORD);
  const startedAt = performance.now();
  await transaction(platform.db, async (tx, events) => {
    await tx.execute(sql.raw(`SET LOCAL statement_timeout = '${STATEMENT_TIMEOUT}'`));
    // The rows other people's writes lock before they reach the user row (the posts holding the account's comments,
    // which a reply locks before notifying the account): taken in their order, so a reply and the deletion wait for
    // each other in one direction only and never deadlock (leaving.types.ts, lockFirst).
    for (const step of ACCOUNT_DELETION_STEPS) await step.lockFirst?.({ tx, events, userId });
    // Step 1 of the lock order of membership.service.ts. FOR UPDATE: a concurrent request of the account's (another
    // device posting, liking) needs KEY SHARE on this row to insert a row naming it, and waits; after the commit its
    // foreign key finds the user gone and it fails (404), instead of slipping in between the steps and the DELETE,
    // where the cascade would remove its row with no tombstone, no push and a counter left one too high.
    const { rows: locked } = await tx.execute<{ password_hash: string }>(sql`SELECT password_hash FROM users WHERE id = ${userId} FOR UPDATE`);
    if (!locked.length) throw notFound();
    // The password changed between the check and the lock: the check was of a password that no longer opens the account.
    if (locked[0].password_hash !== rows[0].password_hash) throw fieldError('password', WRONG_PASSWORD);
    for (const step of ACCOUNT_DELETION_STEPS) await step.run({ tx, events, userId });
    await tx.execute(sql`DELETE FROM users WHERE id = ${userId}`);
  });
  platform.log.info({ userId, durationMs: Math.round(performance.now() - startedAt) }, 'account deleted');
  drainFileDeletionsSoon();
}
