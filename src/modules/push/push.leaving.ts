import { sql } from 'drizzle-orm';
import type { AccountDeletionStep } from '../../core/leaving.js';

/**
 * An account's devices and notification preferences go with it (DESIGN.md section 10): no push reaches a phone of
 * a deleted account. Push outbox rows left for its devices find nothing to send.
 */
export const pushLeaving: AccountDeletionStep = {
  module: 'push',
  handles: { 'push_devices.user_id': 'step', 'notification_preferences.user_id': 'step' },
  async run({ tx, userId }) {
    await tx.execute(sql`DELETE FROM push_devices WHERE user_id = ${userId}::uuid`);
    await tx.execute(sql`DELETE FROM notification_preferences WHERE user_id = ${userId}::uuid`);
  },
};
