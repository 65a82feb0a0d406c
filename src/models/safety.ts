import { index, pgTable, primaryKey, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/** `blocker_id` blocked `blocked_id`: neither sees the other (migration 0020; rules in src/modules/safety). */
export const userBlocks = pgTable(
  'user_blocks',
  {
    blockerId: uuid('blocker_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    blockedId: uuid('blocked_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.blockerId, t.blockedId] }), index('user_blocks_blocked_idx').on(t.blockedId)],
);

/** `muter_id` muted `muted_id`: one way, the muter stops seeing the muted person's posts and comments. */
export const userMutes = pgTable(
  'user_mutes',
  {
    muterId: uuid('muter_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    mutedId: uuid('muted_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.muterId, t.mutedId] }), index('user_mutes_muted_idx').on(t.mutedId)],
);
