import { sql } from 'drizzle-orm';
import type { AccountDeletionStep } from '../leaving/leaving.types.js';

/**
 * Blocks and mutes, both ways: the account's own and the ones others made of it. No hiding change is pushed: the
 * account's sockets are ending, and nothing authored by it is left to hide.
 * (When the reports table lands: a report the account made is deleted with it, a report about its content goes with
 * that content; declare `reports.reporter_id` here.)
 */
export const safetyLeaving: AccountDeletionStep = {
  module: 'safety',
  handles: {
    'user_blocks.blocker_id': 'step',
    'user_blocks.blocked_id': 'step',
    'user_mutes.muter_id': 'step',
    'user_mutes.muted_id': 'step',
  },
  async run({ tx, userId }) {
    await tx.execute(sql`DELETE FROM user_blocks WHERE blocker_id = ${userId}`);
    await tx.execute(sql`DELETE FROM user_blocks WHERE blocked_id = ${userId}`);
    await tx.execute(sql`DELETE FROM user_mutes WHERE muter_id = ${userId}`);
    await tx.execute(sql`DELETE FROM user_mutes WHERE muted_id = ${userId}`);
  },
};
