import { sql, type SQL } from 'drizzle-orm';
import { currentDb } from '../../platform/db.js';
import type { SafetyRelation } from './relations.js';

/** A listed relation: the target's short shape and when the actor made it. */
export interface RelationRow {
  id: string;
  username: string;
  displayName: string;
  profilePicture: string | null;
  createdAt: Date;
}

export type RawRelationRow = { id: string; username: string; display_name: string; profile_picture: string | null; created_at: Date | string };
export const toRelationRow = (p: RawRelationRow): RelationRow => ({ id: p.id, username: p.username, displayName: p.display_name, profilePicture: p.profile_picture, createdAt: new Date(p.created_at) });

// Table and column names come from the constants of relations.ts, never from input.
const names = (r: SafetyRelation) => ({ table: sql.raw(r.table), actor: sql.raw(r.actorColumn), target: sql.raw(r.targetColumn) });

/**
 * The actor's relations in their listed shape (`r`: the relation row, `u`: its target), `extra` columns added; callers
 * go on with `AND ...`, the order and the page. Every read of a list of relations (the lists, the export) starts here.
 */
export function selectRelationsOf(r: SafetyRelation, actorId: string, extra: SQL = sql``): SQL {
  const { table, actor, target } = names(r);
  return sql`SELECT u.id, u.username, u.display_name, u.profile_picture, r.created_at ${extra}
    FROM ${table} r JOIN users u ON u.id = r.${target} WHERE r.${actor} = ${actorId}`;
}

/** Records the relation; false when it was already there (the caller answers 200 instead of 201). */
export async function insertRelation(r: SafetyRelation, actorId: string, targetId: string): Promise<boolean> {
  const { table, actor, target } = names(r);
  const inserted = await currentDb().execute(sql`
    INSERT INTO ${table} (${actor}, ${target}) VALUES (${actorId}, ${targetId}) ON CONFLICT DO NOTHING RETURNING 1 AS one`);
  return inserted.rows.length > 0;
}

export async function deleteRelation(r: SafetyRelation, actorId: string, targetId: string): Promise<void> {
  const { table, actor, target } = names(r);
  await currentDb().execute(sql`DELETE FROM ${table} WHERE ${actor} = ${actorId} AND ${target} = ${targetId}`);
}

/** The actor's relation to `targetId` in its listed shape, or null. */
export async function findRelation(r: SafetyRelation, actorId: string, targetId: string): Promise<RelationRow | null> {
  const { target } = names(r);
  const found = await currentDb().execute<RawRelationRow>(sql`${selectRelationsOf(r, actorId)} AND r.${target} = ${targetId}`);
  return found.rows[0] ? toRelationRow(found.rows[0]) : null;
}

/** One page of the actor's relations, newest first, with the count, in two index reads on the primary key. */
export async function listRelations(r: SafetyRelation, actorId: string, limit: number, offset: number): Promise<{ count: number; rows: RelationRow[] }> {
  const { table, actor } = names(r);
  const counted = await currentDb().execute<{ count: number }>(sql`SELECT count(*)::int AS count FROM ${table} WHERE ${actor} = ${actorId}`);
  const page = await currentDb().execute<RawRelationRow>(sql`
    ${selectRelationsOf(r, actorId)} ORDER BY r.created_at DESC, u.id LIMIT ${limit} OFFSET ${offset}`);
  return {
    count: counted.rows[0].count,
    rows: page.rows.map(toRelationRow),
  };
}

export async function userExists(id: string): Promise<boolean> {
  const found = await currentDb().execute(sql`SELECT 1 FROM users WHERE id = ${id}`);
  return found.rows.length > 0;
}
