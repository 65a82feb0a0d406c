import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../../core/leaving.js';
import { olderThan, positionAt, withPositions } from '../../core/export-paging.js';
import { BLOCKS, MUTES, type SafetyRelation } from './relations.js';
import { serializeRelation, zSafetyRelation } from './safety.serializer.js';
import { selectRelationsOf, toRelationRow, type RawRelationRow } from './safety.queries.js';
import { serializeReport, zSafetyReport } from './reports.serializer.js';
import { toReportRow, type RawReportRow } from './reports.queries.js';

/** Whom the caller blocked or muted, in the shape of `GET /api/safety/blocks/` (what the caller sees of them there). */
function relationsExport(r: SafetyRelation): ExportSection {
  return {
    name: r.kind,
    item: zSafetyRelation,
    async load(viewer, page) {
      const { rows } = await platform.db.execute<RawRelationRow & { at: string; position_id: string }>(sql`
        ${selectRelationsOf(r, viewer.userId, sql`, u.id AS position_id, ${positionAt(sql`r.created_at`)} AS at`)}
        AND ${olderThan(sql`r.created_at`, sql`u.id`, page.before)}
        ORDER BY r.created_at DESC, u.id DESC LIMIT ${page.limit}`);
      return withPositions(rows, (row) => serializeRelation(toRelationRow(row), viewer));
    },
  };
}

export const blocksExport = relationsExport(BLOCKS);
export const mutesExport = relationsExport(MUTES);

/**
 * The caller's own reports, as `GET /api/safety/reports/` shows them plus the details they wrote, newest first. What
 * staff decided and noted is staff's record, not the reporter's: only the status is given, as in their list.
 */
export const reportsExport: ExportSection = {
  name: 'reports',
  item: zSafetyReport.extend({ details: z.string().nullable() }),
  async load(viewer, page) {
    const { rows } = await platform.db.execute<RawReportRow & { details: string | null; at: string; position_id: string }>(sql`
      SELECT r.id, mc.target_type, mc.target_id, r.reason, mc.status, r.created_at, r.details, r.id AS position_id, ${positionAt(sql`r.created_at`)} AS at
      FROM safety_reports r JOIN moderation_cases mc ON mc.id = r.case_id
      WHERE r.reporter_id = ${viewer.userId} AND ${olderThan(sql`r.created_at`, sql`r.id`, page.before)}
      ORDER BY r.created_at DESC, r.id DESC LIMIT ${page.limit}`);
    return withPositions(rows, (row) => ({ ...serializeReport(toReportRow(row)), details: row.details }));
  },
};
