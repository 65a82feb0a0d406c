import { sql } from 'drizzle-orm';
import type { AccountDeletionStep } from '../../core/leaving.js';
import { queueFileDeletionsFrom } from '../media/file-deletions.js';

/**
 * The profile's own files (picture, banner) are deleted from storage after the commit. The people this account
 * invited keep their accounts; who invited them is forgotten (the foreign key clears it). The user row itself is
 * deleted last, by the deletion service, once every step ran.
 */
export const usersLeaving: AccountDeletionStep = {
  module: 'users',
  handles: {
    'users.referred_by_id': 'set null',
  },
  async run({ tx, userId }) {
    await queueFileDeletionsFrom(tx, sql`SELECT profile_picture FROM users WHERE id = ${userId} UNION ALL SELECT banner FROM users WHERE id = ${userId}`);
  },
};
