import { sql, type SQL } from 'drizzle-orm';
import { currentDb, type DbOrTx, type Tx } from '../../platform/db.js';
import type { ModerationLogAction, ReportAction, ReportReason, ReportTargetType } from '../../models/index.js';

/** A user as staff see it embedded in a case or a log entry (stored picture key, not yet a URL). */
export interface StaffUserRef {
  id: string;
  username: string;
  displayName: string;
  profilePicture: string | null;
}

/** Where the reported thing stands now: `gone` once deleted, `suspended` for a user account that was deactivated. */
export type ContentState = 'visible' | 'hidden' | 'suspended' | 'gone';

export interface CaseRow {
  id: string;
  targetType: ReportTargetType;
  targetId: string;
  status: 'open' | 'resolved';
  snapshot: Record<string, unknown>;
  owner: StaffUserRef | null;
  reportersCount: number;
  reasons: Partial<Record<ReportReason, number>>;
  reports: Array<{ id: string; reason: ReportReason; details: string | null; createdAt: Date; reporter: StaffUserRef }>;
  contentState: ContentState;
  autoHiddenAt: Date | null;
  openedAt: Date;
  lastReportedAt: Date;
  resolution: { action: ReportAction; note: string | null; moderator: StaffUserRef | null; resolvedAt: Date } | null;
}

/** Reports shown with each case, newest first (the count and the reasons cover them all). */
export const CASE_REPORTS_SHOWN = 20;

type Raw = Record<string, any>;
const asDate = (v: Date | string) => new Date(v);

/** `alias.id, alias.username ...` as `prefix_id, prefix_username ...`; read back by `userRef`. */
const userColumns = (alias: string, prefix: string) =>
  sql.raw(`${alias}.id AS ${prefix}_id, ${alias}.username AS ${prefix}_username, ${alias}.display_name AS ${prefix}_display_name, ${alias}.profile_picture AS ${prefix}_profile_picture`);
const userRef = (r: Raw, prefix: string): StaffUserRef | null =>
  r[`${prefix}_id`] ? { id: r[`${prefix}_id`], username: r[`${prefix}_username`], displayName: r[`${prefix}_display_name`], profilePicture: r[`${prefix}_profile_picture`] } : null;

/**
 * The reported thing's state now, from its own table. Only posts and comments can be hidden (content-hiding.ts);
 * a row that is gone leaves NULL, read as `gone`.
 */
const contentState = sql`coalesce(CASE mc.target_type
    WHEN 'post' THEN (SELECT CASE WHEN t.hidden_at IS NULL THEN 'visible' ELSE 'hidden' END FROM posts t WHERE t.id = mc.target_id)
    WHEN 'comment' THEN (SELECT CASE WHEN t.hidden_at IS NULL THEN 'visible' ELSE 'hidden' END FROM comments t WHERE t.id = mc.target_id)
    WHEN 'user' THEN (SELECT CASE WHEN t.is_active THEN 'visible' ELSE 'suspended' END FROM users t WHERE t.id = mc.target_id)
    WHEN 'message' THEN (SELECT 'visible' FROM messages t WHERE t.id = mc.target_id)
    WHEN 'store' THEN (SELECT 'visible' FROM stores t WHERE t.id = mc.target_id)
    WHEN 'product' THEN (SELECT 'visible' FROM products t WHERE t.id = mc.target_id)
    WHEN 'community' THEN (SELECT 'visible' FROM communities t WHERE t.id = mc.target_id)
  END, 'gone')`;

/** Cases with everything their entry shows, in one statement: counts, reasons and recent reports are lateral reads on (case_id, reporter_id). */
const casesSql = (where: SQL, tail: SQL) => sql`
  SELECT mc.id, mc.target_type, mc.target_id, mc.status, mc.snapshot, mc.opened_at, mc.last_reported_at, mc.auto_hidden_at,
         mc.resolved_at, mc.resolution, mc.resolution_note, ${userColumns('o', 'owner')}, ${userColumns('m', 'moderator')},
         stats.reporters_count, stats.reasons, recent.reports, ${contentState} AS content_state
    FROM moderation_cases mc
    LEFT JOIN users o ON o.id = mc.owner_id
    LEFT JOIN users m ON m.id = mc.resolved_by
    CROSS JOIN LATERAL (
      SELECT coalesce(sum(x.n), 0)::int AS reporters_count, coalesce(json_object_agg(x.reason, x.n ORDER BY x.reason), '{}'::json) AS reasons
        FROM (SELECT reason, count(*)::int AS n FROM safety_reports WHERE case_id = mc.id GROUP BY reason) x
    ) stats
    CROSS JOIN LATERAL (
      SELECT coalesce(json_agg(json_build_object('id', r.id, 'reason', r.reason, 'details', r.details, 'created_at', r.created_at,
               'reporter_id', u.id, 'reporter_username', u.username, 'reporter_display_name', u.display_name, 'reporter_profile_picture', u.profile_picture)
             ORDER BY r.created_at DESC, r.id DESC), '[]'::json) AS reports
        FROM (SELECT * FROM safety_reports WHERE case_id = mc.id ORDER BY created_at DESC, id DESC LIMIT ${CASE_REPORTS_SHOWN}) r
        JOIN users u ON u.id = r.reporter_id
    ) recent
   WHERE ${where}
   ${tail}`;

const toCaseRow = (r: Raw): CaseRow => ({
  id: r.id,
  targetType: r.target_type,
  targetId: r.target_id,
  status: r.status,
  snapshot: r.snapshot,
  owner: userRef(r, 'owner'),
  reportersCount: r.reporters_count,
  reasons: r.reasons,
  reports: (r.reports as Raw[]).map((x) => ({ id: x.id, reason: x.reason, details: x.details, createdAt: asDate(x.created_at), reporter: userRef(x, 'reporter')! })),
  contentState: r.content_state,
  autoHiddenAt: r.auto_hidden_at ? asDate(r.auto_hidden_at) : null,
  openedAt: asDate(r.opened_at),
  lastReportedAt: asDate(r.last_reported_at),
  resolution: r.resolved_at ? { action: r.resolution, note: r.resolution_note, moderator: userRef(r, 'moderator'), resolvedAt: asDate(r.resolved_at) } : null,
});

/** The queue: open cases oldest first (the longest waiting on top), resolved ones most recently resolved first. */
export async function listCases(status: 'open' | 'resolved', limit: number, offset: number): Promise<{ count: number; rows: CaseRow[] }> {
  const db = currentDb();
  const counted = await db.execute<{ count: number }>(sql`SELECT count(*)::int AS count FROM moderation_cases WHERE status = ${status}`);
  const order = status === 'open' ? sql`ORDER BY mc.opened_at, mc.id` : sql`ORDER BY mc.resolved_at DESC, mc.id DESC`;
  const page = await db.execute<Raw>(casesSql(sql`mc.status = ${status}`, sql`${order} LIMIT ${limit} OFFSET ${offset}`));
  return { count: counted.rows[0].count, rows: page.rows.map(toCaseRow) };
}

export async function findCase(id: string, db: DbOrTx = currentDb()): Promise<CaseRow | null> {
  const { rows } = await db.execute<Raw>(casesSql(sql`mc.id = ${id}::uuid`, sql``));
  return rows[0] ? toCaseRow(rows[0]) : null;
}

/** The case, locked for its resolution (a report of the same thing waits, then opens a new case if this one closed). */
export async function lockCase(tx: Tx, id: string) {
  const { rows } = await tx.execute<{ target_type: ReportTargetType; target_id: string; owner_id: string | null; status: 'open' | 'resolved'; auto_hidden: boolean }>(sql`
    SELECT target_type, target_id, owner_id, status, auto_hidden_at IS NOT NULL AS auto_hidden FROM moderation_cases WHERE id = ${id}::uuid FOR UPDATE`);
  const r = rows[0];
  return r ? { targetType: r.target_type, targetId: r.target_id, ownerId: r.owner_id, status: r.status, autoHidden: r.auto_hidden } : null;
}

export async function markResolved(tx: Tx, id: string, resolution: { by: string; action: ReportAction; note: string | null }): Promise<void> {
  await tx.execute(sql`
    UPDATE moderation_cases SET status = 'resolved', resolved_at = now(), resolved_by = ${resolution.by}::uuid,
           resolution = ${resolution.action}, resolution_note = ${resolution.note}
     WHERE id = ${id}::uuid`);
}

export interface NewLogEntry {
  /** null: the service itself (auto-hide). */
  moderatorId: string | null;
  action: ModerationLogAction;
  caseId: string;
  targetType: ReportTargetType;
  targetId: string;
  subjectId: string | null;
  note: string | null;
}

/** Written in the transaction of the action it records: an action that rolls back leaves no entry. */
export async function insertLogEntry(db: DbOrTx, e: NewLogEntry): Promise<void> {
  await db.execute(sql`
    INSERT INTO moderation_log (moderator_id, action, case_id, target_type, target_id, subject_id, note)
    VALUES (${e.moderatorId}::uuid, ${e.action}, ${e.caseId}::uuid, ${e.targetType}, ${e.targetId}::uuid, ${e.subjectId}::uuid, ${e.note})`);
}

export interface LogRow {
  id: string;
  action: ModerationLogAction;
  caseId: string | null;
  targetType: ReportTargetType;
  targetId: string;
  moderator: StaffUserRef | null;
  subject: StaffUserRef | null;
  note: string | null;
  createdAt: Date;
}

/** One page of the log, newest first, with the count. */
export async function listLogEntries(limit: number, offset: number): Promise<{ count: number; rows: LogRow[] }> {
  const db = currentDb();
  const counted = await db.execute<{ count: number }>(sql`SELECT count(*)::int AS count FROM moderation_log`);
  const page = await db.execute<Raw>(sql`
    SELECT l.id, l.action, l.case_id, l.target_type, l.target_id, l.note, l.created_at, ${userColumns('m', 'moderator')}, ${userColumns('s', 'subject')}
      FROM moderation_log l LEFT JOIN users m ON m.id = l.moderator_id LEFT JOIN users s ON s.id = l.subject_id
     ORDER BY l.created_at DESC, l.id DESC
     LIMIT ${limit} OFFSET ${offset}`);
  return {
    count: counted.rows[0].count,
    rows: page.rows.map((r) => ({
      id: r.id,
      action: r.action,
      caseId: r.case_id,
      targetType: r.target_type,
      targetId: r.target_id,
      moderator: userRef(r, 'moderator'),
      subject: userRef(r, 'subject'),
      note: r.note,
      createdAt: asDate(r.created_at),
    })),
  };
}
