import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../../core/leaving.js';
import { olderThan, positionAt, withPositions } from '../../core/export-paging.js';
import type { ReactionTable } from './reactions.js';

/**
 * An export section of the caller's likes or bookmarks (posts or comments): the target's id and when, nothing of
 * the target itself (it may be someone else's). One row per (target, user): the keyset (created_at, target) is exact.
 */
export function reactionsExport(name: string, spec: Pick<ReactionTable, 'table' | 'targetColumn'>, key: 'post' | 'comment'): ExportSection {
  const table = sql.identifier(spec.table);
  const target = sql.identifier(spec.targetColumn);
  return {
    name,
    item: z.object({ [key]: z.string(), created_at: z.string() }),
    async load(viewer, page) {
      const { rows } = await platform.db.execute<{ target: string; created_at: Date; at: string; position_id: string }>(sql`
        SELECT ${target} AS target, created_at, ${target} AS position_id, ${positionAt(sql`created_at`)} AS at FROM ${table}
        WHERE user_id = ${viewer.userId} AND ${olderThan(sql`created_at`, sql`${target}`, page.before)}
        ORDER BY created_at DESC, ${target} DESC LIMIT ${page.limit}`);
      return withPositions(rows, (r) => ({ [key]: r.target, created_at: new Date(r.created_at).toISOString() }));
    },
  };
}
