import { sql } from 'drizzle-orm';
import type { AccountDeletionStep } from '../../core/leaving.js';

/**
 * Messages the account sent stay in the other people's conversations, written by a deleted account: the foreign key
 * clears their sender (the message object's `sender` is null), and so the conversation's creator. The account leaves
 * every conversation; a conversation nobody else is left in goes, its messages with it (no one can read them).
 */
export const messagesLeaving: AccountDeletionStep = {
  module: 'messages',
  handles: {
    'conversation_participants.user_id': 'step',
    'messages.sender_id': 'set null',
    'conversations.created_by': 'set null',
  },
  async run({ tx, userId }) {
    await tx.execute(sql`
      DELETE FROM conversations c
      WHERE c.id IN (SELECT conversation_id FROM conversation_participants WHERE user_id = ${userId})
        AND NOT EXISTS (SELECT 1 FROM conversation_participants o WHERE o.conversation_id = c.id AND o.user_id <> ${userId})`);
    await tx.execute(sql`DELETE FROM conversation_participants WHERE user_id = ${userId}`);
  },
};
