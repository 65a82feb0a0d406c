import { sql } from 'drizzle-orm';
import { currentDb, type DbOrTx } from '../../platform/db.js';
import type { ReportReason, ReportTargetType } from '../../models/index.js';

/** A person's report as its reporter lists it; its status is its case's. */
export interface ReportRow {
  id: string;
  targetType: ReportTargetType;
  targetId: string;
  reason: ReportReason;
  status: 'open' | 'resolved';
  createdAt: Date;
}

export type RawReportRow = { id: string; target_type: ReportTargetType; target_id: string; reason: ReportReason; status: 'open' | 'resolved'; created_at: Date | string };
export const toReportRow = (r: RawReportRow): ReportRow => ({ id: r.id, targetType: r.target_type, targetId: r.target_id, reason: r.reason, status: r.status, createdAt: new Date(r.created_at) });

const reportColumns = sql`r.id, mc.target_type, mc.target_id, r.reason, mc.status, r.created_at`;

/**
 * The open case of a thing, made by its first report (with that report's snapshot) or found, and locked either way:
 * the INSERT .. ON CONFLICT DO UPDATE takes the row lock of the open case, so reports of one thing run one after the
 * other from here to their commit (migration 0021), and what they count under it is exact.
 */
export async function lockOpenCase(
  db: DbOrTx,
  target: { type: ReportTargetType; id: string; ownerId: string | null; snapshot: Record<string, unknown> },
): Promise<{ id: string; autoHidden: boolean }> {
  const { rows } = await db.execute<{ id: string; auto_hidden: boolean }>(sql`
    INSERT INTO moderation_cases (target_type, target_id, owner_id, snapshot)
    VALUES (${target.type}, ${target.id}::uuid, ${target.ownerId}::uuid, ${JSON.stringify(target.snapshot)}::jsonb)
    ON CONFLICT (target_type, target_id) WHERE status = 'open' DO UPDATE SET last_reported_at = now()
    RETURNING id, auto_hidden_at IS NOT NULL AS auto_hidden`);
  return { id: rows[0].id, autoHidden: rows[0].auto_hidden };
}

/** The reporter's report in this case: the new one, or null when they had already reported it. */
export async function insertReport(db: DbOrTx, caseId: string, reporterId: string, reason: ReportReason, details: string | null): Promise<string | null> {
  const { rows } = await db.execute<{ id: string }>(sql`
    INSERT INTO safety_reports (case_id, reporter_id, reason, details) VALUES (${caseId}::uuid, ${reporterId}::uuid, ${reason}, ${details})
    ON CONFLICT (case_id, reporter_id) DO NOTHING RETURNING id`);
  return rows[0]?.id ?? null;
}

export async function findReport(db: DbOrTx, caseId: string, reporterId: string): Promise<ReportRow | null> {
  const { rows } = await db.execute<RawReportRow>(sql`
    SELECT ${reportColumns} FROM safety_reports r JOIN moderation_cases mc ON mc.id = r.case_id
     WHERE r.case_id = ${caseId}::uuid AND r.reporter_id = ${reporterId}::uuid`);
  return rows[0] ? toReportRow(rows[0]) : null;
}

/** Accounts older than this are "established": only their reports count towards auto-hide (DESIGN.md section 9). */
export const ESTABLISHED_ACCOUNT_AGE = '7 days';

/**
 * Distinct reporters in the case whose accounts are active and older than ESTABLISHED_ACCOUNT_AGE, leaving out
 * everyone who reported the same thing in a case that staff dismissed: a dismissal makes the thing immune to
 * auto-hide by the reporters it already counted (DESIGN.md section 9), so a new auto-hide needs as many new people.
 * The check walks each reporter's own reports (safety_reports_reporter_idx) to their cases by primary key.
 */
export async function countEstablishedReporters(db: DbOrTx, caseId: string): Promise<number> {
  const { rows } = await db.execute<{ n: number }>(sql`
    SELECT count(*)::int AS n
      FROM safety_reports r
      JOIN users u ON u.id = r.reporter_id
      JOIN moderation_cases mc ON mc.id = r.case_id
     WHERE r.case_id = ${caseId}::uuid AND u.is_active AND u.created_at < now() - ${ESTABLISHED_ACCOUNT_AGE}::interval
       AND NOT EXISTS (
         SELECT 1 FROM safety_reports earlier JOIN moderation_cases dismissed ON dismissed.id = earlier.case_id
          WHERE earlier.reporter_id = r.reporter_id AND dismissed.resolution = 'dismiss'
            AND dismissed.target_type = mc.target_type AND dismissed.target_id = mc.target_id)`);
  return rows[0].n;
}

export async function markAutoHidden(db: DbOrTx, caseId: string): Promise<void> {
  await db.execute(sql`UPDATE moderation_cases SET auto_hidden_at = now() WHERE id = ${caseId}::uuid`);
}

/** One page of the reporter's own reports, newest first, with the count. */
export async function listReportsBy(reporterId: string, limit: number, offset: number): Promise<{ count: number; rows: ReportRow[] }> {
  const db = currentDb();
  const counted = await db.execute<{ count: number }>(sql`SELECT count(*)::int AS count FROM safety_reports WHERE reporter_id = ${reporterId}::uuid`);
  const page = await db.execute<RawReportRow>(sql`
    SELECT ${reportColumns} FROM safety_reports r JOIN moderation_cases mc ON mc.id = r.case_id
     WHERE r.reporter_id = ${reporterId}::uuid
     ORDER BY r.created_at DESC, r.id DESC
     LIMIT ${limit} OFFSET ${offset}`);
  return { count: counted.rows[0].count, rows: page.rows.map(toReportRow) };
}
