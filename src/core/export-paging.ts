import { sql, type SQL } from 'drizzle-orm';
import { platform } from '../platform/index.js';
import type { ExportPosition } from './leaving.js';

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

/**
 * The section shape most modules share: a page of the ids of what the caller owns (`from`: the rows, aliased `t`,
 * with `owned` the condition naming the caller), newest first, then those rows read by id as the module's own read
 * does (`loadByIds`, one statement), in page order. A row deleted between the two reads is left out.
 */
export async function ownedRowsPage<T extends { id: string }, I>(
  query: { from: SQL; owned: SQL; before: ExportPosition | null; limit: number },
  loadByIds: (ids: string[]) => Promise<readonly T[]>,
  toItem: (row: T) => I,
): Promise<Array<{ item: I; position: ExportPosition }>> {
  const { rows } = await platform.db.execute<{ id: string; at: string; position_id: string }>(sql`
    SELECT t.id, t.id AS position_id, ${positionAt(sql`t.created_at`)} AS at FROM ${query.from}
    WHERE ${query.owned} AND ${olderThan(sql`t.created_at`, sql`t.id`, query.before)}
    ORDER BY t.created_at DESC, t.id DESC LIMIT ${query.limit}`);
  const found = new Map((await loadByIds(rows.map((r) => r.id))).map((row) => [row.id, row]));
  return withPositions(
    rows.filter((r) => found.has(r.id)),
    (r) => toItem(found.get(r.id)!),
  );
}
