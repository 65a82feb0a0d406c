import { pgTable, primaryKey, uuid, text, bigint, timestamp, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/** A conversation between two or more users; a 1:1 conversation has `directKey` (both ids, smaller first). */
export const conversations = pgTable('conversations', {
  id: uuid('id').primaryKey().defaultRandom(),
  directKey: text('direct_key').unique(),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  lastMessageId: uuid('last_message_id').references((): AnyPgColumn => messages.id, { onDelete: 'set null' }),
  lastMessageAt: timestamp('last_message_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** `seq` orders messages (timestamps can tie); read state is kept as a seq per participant. */
export const messages = pgTable('messages', {
  id: uuid('id').primaryKey().defaultRandom(),
  seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity().notNull(),
  conversationId: uuid('conversation_id').notNull().references((): AnyPgColumn => conversations.id, { onDelete: 'cascade' }),
  senderId: uuid('sender_id').references(() => users.id, { onDelete: 'set null' }),
  /** What the sender wrote: `content` in the API (DESIGN.md 8); the column keeps its first name. */
  text: text('text').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const conversationParticipants = pgTable(
  'conversation_participants',
  {
    conversationId: uuid('conversation_id').notNull().references(() => conversations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    lastReadSeq: bigint('last_read_seq', { mode: 'number' }).notNull().default(0),
    lastReadMessageId: uuid('last_read_message_id').references(() => messages.id, { onDelete: 'set null' }),
    lastReadAt: timestamp('last_read_at', { withTimezone: true }),
    /** The conversation's last activity, copied here by every send: each user's list walks its own index. */
    activityAt: timestamp('activity_at', { withTimezone: true }).notNull().defaultNow(),
    joinedAt: timestamp('joined_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.userId] })],
);

export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
