import { sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db.js';
import { INITIAL_RADIUS_M } from './boundary-policy.js';
import { CELL_MARGIN_M } from './public-grid.js';

/**
 * Two users arriving at the same empty spot at once must not create two locations. Before creating,
 * a transaction takes advisory locks on every cell of a 0.05° grid that its new boundary could reach
 * (500 m plus the cell margin around a published centre that is itself up to a margin away from the
 * point: public-grid.ts); two points close enough for one to fall in the other's new boundary share at least one cell
 * (the cell of either point lies in the other's box), so their creations run one after the other and
 * the second finds the first's location. Locks are taken in a fixed order, so they cannot deadlock.
 */
const CELL_DEGREES = 0.05;
const METRES_PER_DEGREE = 111_320;
const LOCK_NAMESPACE = 7_270_000_000_000;

export function areaLockKeys(latitude: number, longitude: number): number[] {
  const dLat = (INITIAL_RADIUS_M + 2 * CELL_MARGIN_M) / METRES_PER_DEGREE;
  const dLon = Math.min(180, dLat / Math.max(0.02, Math.cos((latitude * Math.PI) / 180)));
  const cell = (deg: number) => Math.floor(deg / CELL_DEGREES);
  const keys: number[] = [];
  for (let i = cell(latitude - dLat); i <= cell(latitude + dLat); i++) {
    for (let j = cell(longitude - dLon); j <= cell(longitude + dLon); j++) keys.push(LOCK_NAMESPACE + (i + 2000) * 10_000 + (j + 4000));
  }
  return keys.sort((a, b) => a - b);
}

export async function lockArea(tx: Tx, latitude: number, longitude: number): Promise<void> {
  for (const key of areaLockKeys(latitude, longitude)) await tx.execute(sql`SELECT pg_advisory_xact_lock(${key}::bigint)`);
}
