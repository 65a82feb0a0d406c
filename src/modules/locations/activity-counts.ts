import { getTableName, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../platform/db.js';

/**
 * Counts the locations module shows that belong to other modules, each written once, here:
 * - a user's activity (posts + comments) for the vote weight;
 * - a location's post_count and store_count for list items and order_by_posts / order_by_stores.
 * All are counted from the rows, so they are exact whatever creates or deletes them.
 */
export async function userActivityCount(db: DbOrTx, userId: string): Promise<number> {
  // Both on indexes (posts_user_created_idx, comments_user_idx).
  const { rows } = await db.execute<{ n: number }>(sql`
    SELECT (SELECT count(*) FROM posts WHERE user_id = ${userId}::uuid) + (SELECT count(*) FROM comments WHERE user_id = ${userId}::uuid) AS n`);
  return Number(rows[0]?.n ?? 0);
}

/** SQL expression for a location's number of posts, usable in SELECT and ORDER BY. */
export function postCountSql(locationId: AnyPgColumn): SQL<number> {
  // Counted on posts_location_created_idx, so it is always exact. The column is qualified by its table:
  // drizzle leaves it bare in a one-table select, where it would mean posts.id inside the subquery.
  const column = sql`${sql.identifier(getTableName(locationId.table))}.${sql.identifier(locationId.name)}`;
  return sql<number>`(SELECT count(*)::int FROM posts p WHERE p.location_id = ${column})`;
}

/** SQL expression for a location's number of stores, usable in SELECT and ORDER BY. */
export function storeCountSql(locationId: AnyPgColumn): SQL<number> {
  // Counted from the rows (stores_location_idx): exact whatever creates, moves or deletes a store. The column is
  // qualified by hand: drizzle renders it bare in a one-table select, where it would mean the store's own id.
  const column = sql`${sql.identifier(getTableName(locationId.table))}.${sql.identifier(locationId.name)}`;
  return sql<number>`(SELECT count(*)::int FROM stores s WHERE s.location_id = ${column})`;
}
