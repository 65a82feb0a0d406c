import { sql } from 'drizzle-orm';
import type { AccountDeletionStep } from '../../core/leaving.js';

/**
 * The account's own notifications go, and so do the ones it caused others to receive: their text names it
 * ("<username> liked your post"), its username is free for someone else to take, and what most of them point at (a
 * like, a comment, a post) is deleted with it. Runs after the steps that tell others of the deletion (cancelled
 * orders, a community's new owner): those have no actor.
 */
export const notificationsLeaving: AccountDeletionStep = {
  module: 'notifications',
  handles: {
    'notifications.user_id': 'step',
    'notifications.actor_id': 'step',
  },
  async run({ tx, userId }) {
    await tx.execute(sql`DELETE FROM notifications WHERE user_id = ${userId}`);
    await tx.execute(sql`DELETE FROM notifications WHERE actor_id = ${userId}`);
  },
};
