import { sql } from 'drizzle-orm';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { platform } from '../../src/platform/index.js';
import { transaction } from '../../src/platform/db.js';
import { ACCOUNT_DELETION_STEPS } from '../../src/modules/leaving/account-deletion.steps.js';
import { coverageProblems, userReferences, type UserReference } from '../../src/modules/leaving/user-references.js';
import type { AccountDeletionStep } from '../../src/core/leaving.js';

/**
 * An account deletion cannot forget a table (docs/modules/leaving.md): every foreign key onto users(id) that the
 * migrated database holds is answered for by exactly one module's step, and a new table that names users fails this
 * file until its module declares what happens to its rows.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

class RolledBack extends Error {}

describe('foreign keys onto users', () => {
  test('when every foreign key onto users is read from the database, then each is handled by exactly one account-deletion step, as it declares', async () => {
    const references = await userReferences(platform.db);
    // The reader itself works: the tables known today are among what it finds.
    expect(references.map((r) => r.column)).toEqual(expect.arrayContaining(['posts.user_id', 'messages.sender_id', 'orders.user_id', 'user_blocks.blocked_id']));
    expect(coverageProblems(references, ACCOUNT_DELETION_STEPS)).toEqual([]);
  });

  test('when a migration adds a table that references users and no step handles it, then the check names that column', async () => {
    let problems: string[] = [];
    await expect(
      transaction(platform.db, async (tx) => {
        await tx.execute(sql.raw('CREATE TABLE leaving_probe (id serial PRIMARY KEY, reporter_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE)'));
        problems = coverageProblems(await userReferences(tx), ACCOUNT_DELETION_STEPS);
        throw new RolledBack();
      }),
    ).rejects.toBeInstanceOf(RolledBack);
    expect(problems).toEqual(['leaving_probe.reporter_id references users(id) and no account-deletion step handles it']);
  });

  test("when a step declares 'set null' of a column whose foreign key deletes, or twice, or of a column that does not exist, then the check says so", () => {
    const references: UserReference[] = [{ column: 'things.owner_id', onDelete: 'c', nullable: false, indexed: true }];
    const step = (module: string, handles: AccountDeletionStep['handles']): AccountDeletionStep => ({ module, handles, run: async () => undefined });
    expect(coverageProblems(references, [step('things', { 'things.owner_id': 'set null' })])).toEqual([
      "things.owner_id is declared 'set null' by things, but its foreign key is not a nullable ON DELETE SET NULL",
    ]);
    expect(coverageProblems(references, [step('a', { 'things.owner_id': 'step' }), step('b', { 'things.owner_id': 'step' })])).toEqual([
      'things.owner_id is handled by several steps: a, b',
    ]);
    expect(coverageProblems(references, [step('a', { 'things.owner_id': 'step', 'gone.user_id': 'step' })])).toEqual([
      'gone.user_id is declared by a but no such foreign key onto users exists',
    ]);
  });

  test('when an account is deleted, then no column that references users is read by a scan of its whole table: each has an index that starts with it', async () => {
    const unindexed = (await userReferences(platform.db)).filter((r) => !r.indexed).map((r) => r.column);
    expect(unindexed).toEqual([]);
  });

  test('when the rows an account deletion removes cascade further, then every foreign key has an index its ON DELETE query can use (one query per deleted row, never a scan)', async () => {
    // Usable: an index that starts with the column, whole or partial on `column IS NOT NULL` (implied by `column = $1`).
    const { rows } = await platform.db.execute<{ reference: string }>(sql`
      SELECT rel.relname || '.' || att.attname AS reference
      FROM pg_constraint con
      JOIN pg_class rel ON rel.oid = con.conrelid
      JOIN pg_namespace ns ON ns.oid = rel.relnamespace AND ns.nspname = 'public'
      JOIN pg_attribute att ON att.attrelid = con.conrelid AND att.attnum = con.conkey[1]
      WHERE con.contype = 'f' AND NOT EXISTS (
        SELECT 1 FROM pg_index i WHERE i.indrelid = con.conrelid AND i.indkey[0] = att.attnum
          AND (i.indpred IS NULL OR pg_get_expr(i.indpred, i.indrelid) = '(' || quote_ident(att.attname) || ' IS NOT NULL)'))
      ORDER BY 1`);
    expect(rows.map((r) => r.reference)).toEqual([]);
  });
});
