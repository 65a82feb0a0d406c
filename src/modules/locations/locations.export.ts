import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../../core/leaving.js';
import { olderThan, positionAt, withPositions } from '../../core/export-paging.js';

/** The names the caller suggested for places, with the weight their vote carried. */
export const nameSuggestionsExport: ExportSection = {
  name: 'location_name_suggestions',
  item: z.object({ id: z.string(), location: z.string(), suggested_name: z.string(), vote_weight: z.number(), created_at: z.string() }),
  async load(viewer, page) {
    const { rows } = await platform.db.execute<{ id: string; location_id: string; suggested_name: string; vote_weight: number; created_at: Date; at: string; position_id: string }>(sql`
      SELECT id, location_id, suggested_name, vote_weight, created_at, id AS position_id, ${positionAt(sql`created_at`)} AS at
      FROM location_name_suggestions
      WHERE user_id = ${viewer.userId} AND ${olderThan(sql`created_at`, sql`id`, page.before)}
      ORDER BY created_at DESC, id DESC LIMIT ${page.limit}`);
    return withPositions(rows, (r) => ({ id: r.id, location: r.location_id, suggested_name: r.suggested_name, vote_weight: r.vote_weight, created_at: new Date(r.created_at).toISOString() }));
  },
};
