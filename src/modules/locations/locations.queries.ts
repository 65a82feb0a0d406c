import { eq, sql } from 'drizzle-orm';
import { locations, type LocationRow } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { currentDb, type DbOrTx, type Tx } from '../../platform/db.js';
import { notFound } from '../../core/errors.js';
import { MAX_RADIUS_M } from './boundary-policy.js';
import { CELL_MARGIN_M } from './public-grid.js';

/** The point as a geography literal parameter (lon/lat order, WGS 84). */
export const geoPoint = (longitude: number, latitude: number) => sql`ST_SetSRID(ST_MakePoint(${longitude}, ${latitude}), 4326)::geography`;

export async function findLocation(id: string, db: DbOrTx = currentDb()): Promise<LocationRow | null> {
  const [row] = await db.select().from(locations).where(eq(locations.id, id)).limit(1);
  return row ?? null;
}

export async function getLocationOr404(id: string, db: DbOrTx = currentDb()): Promise<LocationRow> {
  const row = await findLocation(id, db);
  if (!row) throw notFound();
  return row;
}

/** The location row, locked until the transaction ends: consensus and boundary updates of one location run one at a time. */
export async function lockLocation(tx: Tx, id: string): Promise<LocationRow> {
  const [row] = await tx.select().from(locations).where(eq(locations.id, id)).for('update');
  if (!row) throw notFound();
  return row;
}

/**
 * The location whose published boundary (centre and estimated_radius, plus the cell margin) contains the
 * point, the nearest centre first. Published, not exact: whether a point joins or founds a location is an
 * answer anyone can probe, point after point, so it must depend only on what is public (public-grid.ts);
 * the margin keeps everyone inside the exact boundary inside. The constant pre-filter (the largest radius
 * plus the margin) lets the GiST index on `center` answer; the per-row radius is checked on the few
 * candidates, and `<->` orders them by the index.
 */
export async function findContainingLocationId(db: DbOrTx, longitude: number, latitude: number): Promise<string | null> {
  const point = geoPoint(longitude, latitude);
  const rows = await db
    .select({ id: locations.id })
    .from(locations)
    .where(sql`ST_DWithin(${locations.center}, ${point}, ${MAX_RADIUS_M + CELL_MARGIN_M}) AND ST_DWithin(${locations.center}, ${point}, ${locations.estimatedRadius} + ${CELL_MARGIN_M})`)
    .orderBy(sql`${locations.center} <-> ${point}`)
    .limit(1);
  return rows[0]?.id ?? null;
}
