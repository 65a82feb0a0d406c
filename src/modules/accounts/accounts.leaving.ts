import { sql } from 'drizzle-orm';
import type { AccountDeletionStep } from '../../core/leaving.js';
import { endAllSessions } from './sessions.js';

/**
 * Every session ends at once, as a deactivation ends them (endAllSessions: tokens refused, every node forgets the
 * cached caller; each live socket of the account hears `auth:expired` and is disconnected), and what kept them goes.
 */
export const accountsLeaving: AccountDeletionStep = {
  module: 'accounts',
  handles: {
    'refresh_tokens.user_id': 'step',
    'password_resets.user_id': 'step',
    'login_clients.user_id': 'step',
  },
  async run({ tx, events, userId }) {
    await endAllSessions(tx, events, userId);
    await tx.execute(sql`DELETE FROM refresh_tokens WHERE user_id = ${userId}`);
    await tx.execute(sql`DELETE FROM password_resets WHERE user_id = ${userId}`);
    await tx.execute(sql`DELETE FROM login_clients WHERE user_id = ${userId}`);
  },
};
