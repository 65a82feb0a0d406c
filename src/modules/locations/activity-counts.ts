import { getTableName, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../platform/db.js';

/**
 * Counts that belong to modules which have not landed yet. Each is written once, here, so that the
 * posts and stores issues fill them in one place (their issues keep them right):
 * - a user's activity (posts + comments) for the vote weight: 0 until the posts module exists;
 * - a location's post_count and store_count for list items and order_by_posts / order_by_stores:
 *   0 until the posts and stores modules exist.
 * These are real zeros (no such rows can exist yet), not placeholders for made-up numbers.
 */
export async function userActivityCount(_db: DbOrTx, _userId: string): Promise<number> {
  // posts issue: return (posts by user) + (comments by user).
  return 0;
}

/** SQL expression for a location's number of posts, usable in SELECT and ORDER BY. */
export function postCountSql(_locationId: AnyPgColumn): SQL<number> {
  // posts issue: sql`(SELECT count(*)::int FROM posts p WHERE p.location_id = ${_locationId})` or a counter column.
  return sql<number>`0::int`;
}

/** SQL expression for a location's number of stores, usable in SELECT and ORDER BY. */
export function storeCountSql(locationId: AnyPgColumn): SQL<number> {
  // Counted from the rows (stores_location_idx): exact whatever creates, moves or deletes a store. The column is
  // qualified by hand: drizzle renders it bare in a one-table select, where it would mean the store's own id.
  const column = sql`${sql.identifier(getTableName(locationId.table))}.${sql.identifier(locationId.name)}`;
  return sql<number>`(SELECT count(*)::int FROM stores s WHERE s.location_id = ${column})`;
}
