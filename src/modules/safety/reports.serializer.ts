import { z } from 'zod';
import type { RequestContext } from '../../core/context.js';
import { REPORT_ACTIONS, REPORT_REASONS, REPORT_TARGET_TYPES } from '../../models/index.js';
import { serializeUserSummary, zUserSummary } from '../users/users.serializer.js';
import type { ReportRow } from './reports.queries.js';
import type { CaseRow, LogRow, StaffUserRef } from './moderation.queries.js';

type UrlContext = Pick<RequestContext, 'baseUrl'>;

/** A person's report as they see it (DESIGN.md section 9): its status follows the case staff resolve. */
export const zSafetyReport = z
  .object({
    id: z.string(),
    target_type: z.enum(REPORT_TARGET_TYPES),
    target_id: z.string(),
    reason: z.enum(REPORT_REASONS),
    status: z.enum(['open', 'resolved']),
    created_at: z.string(),
  })
  .meta({ id: 'SafetyReport' });
export type SafetyReportBody = z.infer<typeof zSafetyReport>;

export function serializeReport(r: ReportRow): SafetyReportBody {
  return { id: r.id, target_type: r.targetType, target_id: r.targetId, reason: r.reason, status: r.status, created_at: r.createdAt.toISOString() };
}

const staffUser = (u: StaffUserRef | null, ctx: UrlContext) => (u ? serializeUserSummary(u, ctx) : null);

/** What staff review: one entry per reported thing (a case), with every report of it counted. */
export const zModerationReport = z
  .object({
    id: z.string().describe('The case: `{id}` of POST /api/admin/reports/{id}/resolve/'),
    target_type: z.enum(REPORT_TARGET_TYPES),
    target_id: z.string(),
    status: z.enum(['open', 'resolved']),
    snapshot: z
      .record(z.string(), z.unknown())
      .describe("The reported thing as its first reporter saw it, in its own read's shape (post, comment, message alone, user summary with bio, store, product, community summary)"),
    current: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('A reported post or comment as it reads now, beside the snapshot of the version reported (it may have been edited since); null for other kinds, or once it is gone'),
    owner: zUserSummary.nullable().describe('Whose it is (the subject of suspend); null once that account is gone'),
    content_state: z.enum(['visible', 'hidden', 'suspended', 'gone']).describe('The thing now: hidden by moderation, a suspended user, or gone (deleted)'),
    reporters_count: z.number().int().describe('Distinct people who reported it in this case'),
    reasons: z.record(z.string(), z.number().int()).describe('Reports per reason'),
    reports: z
      .array(z.object({ id: z.string(), reporter: zUserSummary, reason: z.enum(REPORT_REASONS), details: z.string().nullable(), created_at: z.string() }))
      .describe('The most recent reports, newest first (at most 20)'),
    auto_hidden_at: z.string().nullable().describe('When enough established reporters hid it pending review'),
    created_at: z.string().describe('When its first report opened the case'),
    last_reported_at: z.string(),
    resolution: z
      .object({ action: z.enum(REPORT_ACTIONS), note: z.string().nullable(), moderator: zUserSummary.nullable(), resolved_at: z.string() })
      .nullable(),
  })
  .meta({ id: 'ModerationReport' });
export type ModerationReportBody = z.infer<typeof zModerationReport>;

export function serializeCase(c: CaseRow, ctx: UrlContext, current: Record<string, unknown> | null = null): ModerationReportBody {
  return {
    id: c.id,
    target_type: c.targetType,
    target_id: c.targetId,
    status: c.status,
    snapshot: c.snapshot,
    current,
    owner: staffUser(c.owner, ctx),
    content_state: c.contentState,
    reporters_count: c.reportersCount,
    reasons: c.reasons,
    reports: c.reports.map((r) => ({ id: r.id, reporter: serializeUserSummary(r.reporter, ctx), reason: r.reason, details: r.details, created_at: r.createdAt.toISOString() })),
    auto_hidden_at: c.autoHiddenAt?.toISOString() ?? null,
    created_at: c.openedAt.toISOString(),
    last_reported_at: c.lastReportedAt.toISOString(),
    resolution: c.resolution
      ? { action: c.resolution.action, note: c.resolution.note, moderator: staffUser(c.resolution.moderator, ctx), resolved_at: c.resolution.resolvedAt.toISOString() }
      : null,
  };
}

/** One moderation action: who (null: the service's auto-hide), what, on which case and thing, about whom, why, when. */
export const zModerationLogEntry = z
  .object({
    id: z.string(),
    action: z.enum(['auto_hide', ...REPORT_ACTIONS]),
    moderator: zUserSummary.nullable().describe('null for auto-hide, or once the account is gone'),
    report_id: z.string().nullable().describe('The case (ModerationReport id)'),
    target_type: z.enum(REPORT_TARGET_TYPES),
    target_id: z.string(),
    subject: zUserSummary.nullable().describe("The account the action bore on: the content's owner, the suspended user"),
    note: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'ModerationLogEntry' });
export type ModerationLogEntryBody = z.infer<typeof zModerationLogEntry>;

export function serializeLogEntry(e: LogRow, ctx: UrlContext): ModerationLogEntryBody {
  return {
    id: e.id,
    action: e.action,
    moderator: staffUser(e.moderator, ctx),
    report_id: e.caseId,
    target_type: e.targetType,
    target_id: e.targetId,
    subject: staffUser(e.subject, ctx),
    note: e.note,
    created_at: e.createdAt.toISOString(),
  };
}
