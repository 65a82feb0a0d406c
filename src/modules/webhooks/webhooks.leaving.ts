import { sql } from 'drizzle-orm';
import type { AccountDeletionStep } from '../../core/leaving.js';

/**
 * The account's webhooks go with it (DESIGN.md section 12), their deliveries too; outbox rows left for them find
 * nothing to send. (A store's webhooks also go with the store, by its foreign key.)
 */
export const webhooksLeaving: AccountDeletionStep = {
  module: 'webhooks',
  handles: { 'webhooks.owner_id': 'step' },
  async run({ tx, userId }) {
    await tx.execute(sql`DELETE FROM webhooks WHERE owner_id = ${userId}::uuid`);
  },
};
