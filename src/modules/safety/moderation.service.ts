import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { AppError, fieldError, forbidden, notFound } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import type { ReportAction } from '../../models/index.js';
import { deactivateUser } from '../accounts/account-access.service.js';
import { emitServiceEvent } from '../webhooks/webhooks.events.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import { hideContent, isHideable, restoreContent } from './content-hiding.js';
import { findCase, insertLogEntry, listCases, listLogEntries, lockCase, markResolved } from './moderation.queries.js';
import { serializeCase, serializeLogEntry, type ModerationReportBody } from './reports.serializer.js';
import { caseBody, currentVersions } from './report-targets.js';

/** The moderation queue (staff only): open cases oldest first, or resolved ones most recently resolved first. */
export async function listModerationQueue(ctx: AuthedContext, input: { status?: 'open' | 'resolved'; page?: number; page_size?: number }) {
  const status = input.status ?? 'open';
  const params = pageParams(input, { size: 20, max: 100 });
  const { count, rows } = await listCases(status, params.limit, params.offset);
  const current = await currentVersions(rows);
  return paginated(ctx, '/api/admin/reports/', params, count, rows.map((c) => serializeCase(c, ctx, current.get(`${c.targetType}:${c.targetId}`) ?? null)), { status });
}

/** The answer to staff resolving a case about themselves or their own content (DESIGN.md section 9). */
export const OWN_CASE = 'You cannot resolve a report about yourself or your own content.';

/**
 * Resolves a case, and with it every report in it (DESIGN.md section 9), in one transaction with its effects and
 * its log entry:
 * - `dismiss`: nothing was wrong. What auto-hide hid pending review comes back.
 * - `hide`: the post or comment is hidden for everyone but its author and staff (content-hiding.ts). Other kinds
 *   cannot be hidden: 400 on `action` (suspend their owner, or dismiss).
 * - `suspend`: the owner's account is deactivated as an administrator's deactivation does it (every session ends
 *   at once), and a hideable thing is hidden too: the report was upheld, and a suspended author's posts stay up.
 * A case already resolved is 400; an unknown one 404. Staff never resolve a case about their own content or their
 * own account (403, whatever the action): another staff member decides it.
 */
export async function resolveReport(ctx: AuthedContext, caseId: string, input: { action: ReportAction; note?: string | null }): Promise<ModerationReportBody> {
  const note = input.note?.trim() || null;
  await transaction(platform.db, async (tx, events) => {
    const found = await lockCase(tx, caseId);
    if (!found) throw notFound();
    if (found.ownerId === ctx.user.id) throw forbidden(OWN_CASE);
    if (found.status !== 'open') throw new AppError(400, { detail: 'This report is already resolved.' });
    const { targetType, targetId, ownerId } = found;
    if (input.action === 'hide' && !isHideable(targetType)) {
      throw fieldError('action', `A ${targetType} cannot be hidden: suspend its owner, or dismiss the report.`);
    }
    if (input.action === 'suspend') {
      if (!ownerId) throw fieldError('action', 'The account behind this no longer exists.');
      // Deactivating staff is an administrator's decision (PATCH /api/admin/users/ is admin-only): a report of a
      // staff member's content does not let another staff member do it.
      const { rows: owner } = await tx.execute<{ privileged: boolean }>(sql`SELECT is_staff OR is_admin AS privileged FROM users WHERE id = ${ownerId}::uuid`);
      if (owner[0]?.privileged && !ctx.user.isAdmin) throw fieldError('action', 'Only an administrator can suspend a staff account.');
      await deactivateUser(tx, events, ownerId);
    }
    if (input.action === 'hide' || input.action === 'suspend') await hideContent(tx, events, targetType, targetId);
    if (input.action === 'dismiss' && found.autoHidden) await restoreContent(tx, targetType, targetId);
    await markResolved(tx, caseId, { by: ctx.user.id, action: input.action, note });
    await insertLogEntry(tx, { moderatorId: ctx.user.id, action: input.action, caseId, targetType, targetId, subjectId: ownerId, note });
    // Staff webhooks get the resolved case as the queue shows it, in this transaction's outbox.
    await emitServiceEvent(tx, 'moderation.action', async () => caseBody((await findCase(caseId, tx))!, { baseUrl: serverBaseUrl() }));
  });
  return caseBody((await findCase(caseId))!, ctx);
}

/** Every moderation action, newest first (staff only). */
export async function listModerationLog(ctx: AuthedContext, input: { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 50, max: 100 });
  const { count, rows } = await listLogEntries(params.limit, params.offset);
  return paginated(ctx, '/api/admin/moderation-log/', params, count, rows.map((e) => serializeLogEntry(e, ctx)));
}
