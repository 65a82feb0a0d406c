import { pgTable, uuid, text, doublePrecision, boolean, jsonb, timestamp } from 'drizzle-orm/pg-core';
import { locations } from './locations.js';
import { users } from './users.js';

/** A user's suggested name for a location; one active suggestion per (location, user). */
export const locationNameSuggestions = pgTable('location_name_suggestions', {
  id: uuid('id').primaryKey().defaultRandom(),
  locationId: uuid('location_id').notNull().references(() => locations.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  suggestedName: text('suggested_name').notNull(),
  voteWeight: doublePrecision('vote_weight').notNull(),
  isApproved: boolean('is_approved').notNull().default(false),
  isFlagged: boolean('is_flagged').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const MODERATION_ACTIONS = ['name_changed', 'boundary_recalculated', 'flagged', 'admin_update'] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];

/** The audit trail of location changes and administrative actions (LocationModerationLog). */
export const locationModerationLogs = pgTable('location_moderation_logs', {
  id: uuid('id').primaryKey().defaultRandom(),
  locationId: uuid('location_id').notNull().references(() => locations.id, { onDelete: 'cascade' }),
  actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
  action: text('action', { enum: MODERATION_ACTIONS }).notNull(),
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export type LocationNameSuggestionRow = typeof locationNameSuggestions.$inferSelect;
