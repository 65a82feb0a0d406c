import { sql } from 'drizzle-orm';
import type { AccountDeletionStep } from '../../core/leaving.js';

/**
 * Blocks and mutes, both ways: the account's own and the ones others made of it. No hiding change is pushed: the
 * account's sockets are ending, and nothing authored by it is left to hide.
 *
 * Reports: those the account made are deleted with it (its words, its personal data); a case staff review stays,
 * with its snapshot, as the record of what was reported and decided, and its count of reporters drops. The account's
 * name leaves the cases and the moderation log (as the content's owner, the subject of an action, or the staff
 * member who acted): those columns become NULL by their foreign keys (migration 0021).
 */
export const safetyLeaving: AccountDeletionStep = {
  module: 'safety',
  handles: {
    'user_blocks.blocker_id': 'step',
    'user_blocks.blocked_id': 'step',
    'user_mutes.muter_id': 'step',
    'user_mutes.muted_id': 'step',
    'safety_reports.reporter_id': 'step',
    'moderation_cases.owner_id': 'set null',
    'moderation_cases.resolved_by': 'set null',
    'moderation_log.moderator_id': 'set null',
    'moderation_log.subject_id': 'set null',
  },
  async run({ tx, userId }) {
    await tx.execute(sql`DELETE FROM user_blocks WHERE blocker_id = ${userId}`);
    await tx.execute(sql`DELETE FROM user_blocks WHERE blocked_id = ${userId}`);
    await tx.execute(sql`DELETE FROM user_mutes WHERE muter_id = ${userId}`);
    await tx.execute(sql`DELETE FROM user_mutes WHERE muted_id = ${userId}`);
    await tx.execute(sql`DELETE FROM safety_reports WHERE reporter_id = ${userId}`);
  },
};
