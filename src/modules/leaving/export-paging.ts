import { sql, type SQL } from 'drizzle-orm';
import type { ExportPosition } from './leaving.types.js';

/**
 * The keyset every export section pages by: (created_at, id), newest first, so that a page is one index range and
 * items written while the caller pages do not shift what comes next. Positions keep microseconds (the column's
 * precision), written as realtime.sync writes its own.
 */
export const positionAt = (column: SQL): SQL => sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Rows strictly after `before` in the newest-first order of (at, id); every row when there is no position. */
export const olderThan = (at: SQL, id: SQL, before: ExportPosition | null): SQL =>
  before ? sql`(${at}, ${id}) < (${before.at}::timestamptz, ${before.id}::uuid)` : sql`TRUE`;

/** A section's rows as items with positions: `toItem` shapes one row (SQL rows carry `at` and `position_id`). */
export function withPositions<R extends { at: string; position_id: string }, I>(rows: readonly R[], toItem: (row: R) => I): Array<{ item: I; position: ExportPosition }> {
  return rows.map((row) => ({ item: toItem(row), position: { at: row.at, id: row.position_id } }));
}
