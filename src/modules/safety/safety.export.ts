import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../leaving/leaving.types.js';
import { olderThan, positionAt, withPositions } from '../leaving/export-paging.js';
import { BLOCKS, MUTES, type SafetyRelation } from './relations.js';
import { serializeRelation, zSafetyRelation } from './safety.serializer.js';

/** Whom the caller blocked or muted, in the shape of `GET /api/safety/blocks/` (what the caller sees of them there). */
function relationsExport(r: SafetyRelation): ExportSection {
  const table = sql.raw(r.table);
  const actor = sql.raw(r.actorColumn);
  const target = sql.raw(r.targetColumn);
  return {
    name: r.kind,
    item: zSafetyRelation,
    async load(viewer, page) {
      const { rows } = await platform.db.execute<{ id: string; username: string; display_name: string; profile_picture: string | null; created_at: Date; at: string; position_id: string }>(sql`
        SELECT u.id, u.username, u.display_name, u.profile_picture, r.created_at, u.id AS position_id, ${positionAt(sql`r.created_at`)} AS at
        FROM ${table} r JOIN users u ON u.id = r.${target}
        WHERE r.${actor} = ${viewer.userId} AND ${olderThan(sql`r.created_at`, sql`u.id`, page.before)}
        ORDER BY r.created_at DESC, u.id DESC LIMIT ${page.limit}`);
      return withPositions(rows, (row) =>
        serializeRelation({ id: row.id, username: row.username, displayName: row.display_name, profilePicture: row.profile_picture, createdAt: new Date(row.created_at) }, viewer),
      );
    },
  };
}

export const blocksExport = relationsExport(BLOCKS);
export const mutesExport = relationsExport(MUTES);

/**
 * REPORTS: the caller's own reports (DESIGN.md section 9) belong in the export. This branch has no `reports` table
 * yet; when it lands, this section reads the caller's reports (`reporter_id`) as `GET /api/safety/reports/` shows
 * them, newest first by (created_at, id), and the safety module's account-deletion step (safety.leaving.ts) declares
 * `reports.reporter_id` (the coverage test will not pass until it does). Until then the section is always empty.
 */
export const reportsExport: ExportSection = {
  name: 'reports',
  item: z.object({}).loose().describe('A report the caller made, once the reports table exists'),
  load: async () => [],
};
