import type { AuthedContext } from '../../core/context.js';
import { fieldError, notFound } from '../../core/errors.js';
import type { PendingEvents } from '../../core/events.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { platform } from '../../platform/index.js';
import { transaction, type Tx } from '../../platform/db.js';
import type { ReportReason, ReportTargetType } from '../../models/index.js';
import { caseBody, findReportableTarget, type ReportTarget } from './report-targets.js';
import { hideContent, isHideable } from './content-hiding.js';
import { countEstablishedReporters, findReport, insertReport, listReportsBy, lockOpenCase, markAutoHidden } from './reports.queries.js';
import { insertLogEntry } from './moderation.queries.js';
import { serializeReport, type SafetyReportBody } from './reports.serializer.js';
import { findCase } from './moderation.queries.js';
import { emitServiceEvent } from '../webhooks/webhooks.events.js';
import { serverBaseUrl } from '../../core/server-base-url.js';

export interface NewReport {
  target_type: ReportTargetType;
  target_id: string;
  reason: ReportReason;
  details?: string | null;
}

/**
 * A report (DESIGN.md section 9). The reporter must be able to see the thing (report-targets.ts answers what its
 * read answers otherwise); their own things are not theirs to report. The report joins the thing's open case, or
 * opens one with the thing's snapshot; the same reporter again gets their report back (`created: false`, 200).
 */
export async function fileReport(ctx: AuthedContext, input: NewReport): Promise<{ created: boolean; report: SafetyReportBody }> {
  const target = await findReportableTarget(ctx, input.target_type, input.target_id);
  if (target.ownerId === ctx.user.id) {
    throw fieldError('target_id', input.target_type === 'user' ? 'You cannot report yourself.' : 'You cannot report your own content.');
  }
  return transaction(platform.db, async (tx, events) => {
    const openCase = await lockOpenCase(tx, { type: input.target_type, id: input.target_id, ...target });
    const reportId = await insertReport(tx, openCase.id, ctx.user.id, input.reason, input.details?.trim() || null);
    if (reportId && !openCase.autoHidden) await autoHideIfReported(tx, events, openCase.id, input.target_type, input.target_id, target);
    const report = await findReport(tx, openCase.id, ctx.user.id);
    // The reporter's account was deleted meanwhile (its reports go with it).
    if (!report) throw notFound();
    // Staff webhooks get the case as the moderation queue shows it, in this transaction's outbox.
    if (reportId) await emitServiceEvent(tx, 'report.created', async () => caseBody((await findCase(openCase.id, tx))!, { baseUrl: serverBaseUrl() }));
    return { created: reportId !== null, report: serializeReport(report) };
  });
}

/**
 * Auto-hide: once MODERATION_AUTO_HIDE_REPORTS distinct established reporters (active accounts older than 7 days)
 * reported a hideable thing in its open case, it is hidden at once, pending review; the case stays open. Runs under
 * the case's row lock (lockOpenCase), so two reports at the same moment are counted one after the other: the
 * threshold is neither missed nor passed twice, and the thing is hidden once.
 */
async function autoHideIfReported(tx: Tx, events: PendingEvents, caseId: string, type: ReportTargetType, id: string, target: ReportTarget): Promise<void> {
  const threshold = platform.config.MODERATION_AUTO_HIDE_REPORTS;
  if (threshold === 0 || !isHideable(type)) return;
  const established = await countEstablishedReporters(tx, caseId);
  if (established < threshold) return;
  if (!(await hideContent(tx, events, type, id))) return;
  await markAutoHidden(tx, caseId);
  await insertLogEntry(tx, {
    moderatorId: null,
    action: 'auto_hide',
    caseId,
    targetType: type,
    targetId: id,
    subjectId: target.ownerId,
    note: `Reported by ${established} established accounts; hidden pending review.`,
  });
}

/** The caller's own reports, newest first (page size 20, at most 100). */
export async function listMyReports(ctx: AuthedContext, input: { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const { count, rows } = await listReportsBy(ctx.user.id, params.limit, params.offset);
  return paginated(ctx, '/api/safety/reports/', params, count, rows.map(serializeReport));
}
