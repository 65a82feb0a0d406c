import { check, index, pgTable, text, timestamp, unique, uuid, jsonb, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { users } from './users.js';

/** What may be reported, and why (DESIGN.md section 9). */
export const REPORT_TARGET_TYPES = ['post', 'comment', 'user', 'message', 'store', 'product', 'community'] as const;
export type ReportTargetType = (typeof REPORT_TARGET_TYPES)[number];
export const REPORT_REASONS = ['spam', 'harassment', 'hate', 'violence', 'sexual', 'scam', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];
export const REPORT_ACTIONS = ['dismiss', 'hide', 'suspend'] as const;
export type ReportAction = (typeof REPORT_ACTIONS)[number];
/** What the moderation log records: the staff actions, and the automatic hide. */
export type ModerationLogAction = ReportAction | 'auto_hide';

/**
 * One open case per reported thing, reviewed by staff; its reports are `safety_reports` (migration 0021, where the
 * constraints and the queue's indexes are; rules in src/modules/safety).
 */
export const moderationCases = pgTable(
  'moderation_cases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    targetType: text('target_type', { enum: REPORT_TARGET_TYPES }).notNull(),
    targetId: uuid('target_id').notNull(),
    ownerId: uuid('owner_id').references(() => users.id, { onDelete: 'set null' }),
    snapshot: jsonb('snapshot').notNull(),
    status: text('status', { enum: ['open', 'resolved'] }).notNull().default('open'),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull().defaultNow(),
    lastReportedAt: timestamp('last_reported_at', { withTimezone: true }).notNull().defaultNow(),
    autoHiddenAt: timestamp('auto_hidden_at', { withTimezone: true }),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    resolvedBy: uuid('resolved_by').references(() => users.id, { onDelete: 'set null' }),
    resolution: text('resolution', { enum: REPORT_ACTIONS }),
    resolutionNote: text('resolution_note'),
  },
  (t) => [
    uniqueIndex('moderation_cases_open_target_idx').on(t.targetType, t.targetId).where(sql`status = 'open'`),
    check('moderation_cases_resolved_check', sql`(${t.status} = 'open') = (${t.resolvedAt} IS NULL)`),
  ],
);

export const safetyReports = pgTable(
  'safety_reports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    caseId: uuid('case_id').notNull().references(() => moderationCases.id, { onDelete: 'cascade' }),
    reporterId: uuid('reporter_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    reason: text('reason', { enum: REPORT_REASONS }).notNull(),
    details: text('details'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique().on(t.caseId, t.reporterId), index('safety_reports_reporter_idx').on(t.reporterId, t.createdAt.desc(), t.id.desc())],
);

export const moderationLog = pgTable(
  'moderation_log',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    moderatorId: uuid('moderator_id').references(() => users.id, { onDelete: 'set null' }),
    action: text('action', { enum: ['auto_hide', ...REPORT_ACTIONS] }).notNull(),
    caseId: uuid('case_id').references(() => moderationCases.id, { onDelete: 'set null' }),
    targetType: text('target_type').notNull(),
    targetId: uuid('target_id').notNull(),
    subjectId: uuid('subject_id').references(() => users.id, { onDelete: 'set null' }),
    note: text('note'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('moderation_log_created_idx').on(t.createdAt.desc(), t.id.desc())],
);
