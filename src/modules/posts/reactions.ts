import { sql } from 'drizzle-orm';
import { notFound } from '../../core/errors.js';
import type { DbOrTx } from '../../platform/db.js';

/**
 * Like and bookmark toggles of posts and comments, exact under concurrency: the reaction row's primary key
 * (target, user) makes it unique, and the counter moves by a single-statement increment in the same
 * transaction as the row's insert or delete, only when a row was really inserted or deleted. Two rapid
 * toggles by one user serialise on the primary key: the second sees the first's row and removes it.
 */
export interface ReactionTable {
  /** The reaction table and its column naming the target, e.g. post_likes.post_id. */
  table: 'post_likes' | 'post_bookmarks' | 'comment_likes' | 'comment_bookmarks';
  targetColumn: 'post_id' | 'comment_id';
  /** The target table and its counter column. */
  targetTable: 'posts' | 'comments';
  counter: 'likes_count' | 'bookmarks_count';
}

export interface ToggleResult {
  active: boolean;
  count: number;
}

/**
 * `beforeCount` runs after the reaction row was inserted or deleted and before the counter moves: work done
 * there (a notification) does not hold the target row's lock, which every toggle of a hot post queues on.
 */
export async function toggleReaction(
  db: DbOrTx,
  spec: ReactionTable,
  targetId: string,
  userId: string,
  beforeCount?: (active: boolean) => Promise<void>,
): Promise<ToggleResult> {
  const table = sql.identifier(spec.table);
  const column = sql.identifier(spec.targetColumn);
  const target = sql.identifier(spec.targetTable);
  const counter = sql.identifier(spec.counter);
  // The target's existence is checked in the same statement (a missing one inserts nothing, never a FK error).
  const inserted = await db.execute(sql`
    INSERT INTO ${table} (${column}, user_id)
    SELECT ${targetId}::uuid, ${userId}::uuid WHERE EXISTS (SELECT 1 FROM ${target} WHERE id = ${targetId}::uuid)
    ON CONFLICT DO NOTHING RETURNING 1`);
  if (inserted.rows.length) {
    await beforeCount?.(true);
    return { active: true, count: await bump(db, target, counter, targetId, 1) };
  }
  const deleted = await db.execute(sql`DELETE FROM ${table} WHERE ${column} = ${targetId}::uuid AND user_id = ${userId}::uuid RETURNING 1`);
  if (deleted.rows.length) {
    await beforeCount?.(false);
    return { active: false, count: await bump(db, target, counter, targetId, -1) };
  }
  // Neither: the target does not exist (or a concurrent toggle of the same user removed the row first).
  const { rows } = await db.execute<{ n: number }>(sql`SELECT ${counter} AS n FROM ${target} WHERE id = ${targetId}::uuid`);
  if (!rows.length) throw notFound();
  return { active: false, count: rows[0].n };
}

async function bump(db: DbOrTx, target: ReturnType<typeof sql.identifier>, counter: ReturnType<typeof sql.identifier>, id: string, by: 1 | -1): Promise<number> {
  const { rows } = await db.execute<{ n: number }>(sql`
    UPDATE ${target} SET ${counter} = ${counter} + ${by}::int WHERE id = ${id}::uuid RETURNING ${counter} AS n`);
  return rows[0]?.n ?? 0;
}
