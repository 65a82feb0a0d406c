import { eq, sql } from 'drizzle-orm';
import type { PendingEvents } from '../../core/events.js';
import type { Tx } from '../../platform/db.js';
import { locations, users, type LocationRow } from '../../models/index.js';
import { INITIAL_RADIUS_M, boundedRadius } from './boundary-policy.js';
import { locationUpdated } from './location-events.js';
import { logModeration } from './moderation-log.js';

export type BoundaryReason = 'join' | 'nightly' | 'manual';

export interface BoundaryResult {
  location: LocationRow;
  changed: boolean;
  /** Members with coordinates that the boundary was drawn from (0: nothing to draw from, unchanged). */
  members: number;
  previous: { center_latitude: number | null; center_longitude: number | null; estimated_radius: number };
}

/**
 * Redraw a location's boundary from its members' coordinates, entirely in PostGIS: the centre is the
 * centroid of the points (ST_Centroid of ST_Collect), the radius the 90th percentile of their distances
 * from it (percentile_cont over ST_Distance on the sphere), bounded 200..2000 m. Only two numbers and
 * a point leave the database, however many members there are. The caller holds the location row lock.
 */
export async function recalculateBoundary(tx: Tx, events: PendingEvents, location: LocationRow, reason: BoundaryReason, actorId: string | null = null): Promise<BoundaryResult> {
  const previous = { center_latitude: location.centerLatitude, center_longitude: location.centerLongitude, estimated_radius: location.estimatedRadius };
  const result = await tx.execute<{ members: number; lat: number | null; lon: number | null; p90: number | null }>(sql`
    WITH pts AS (
      SELECT ${users.point}::geometry AS g FROM ${users}
      WHERE ${users.locationId} = ${location.id} AND ${users.point} IS NOT NULL
    ), centre AS (
      SELECT ST_Centroid(ST_Collect(g)) AS c, count(*)::int AS members FROM pts
    )
    SELECT centre.members,
           ST_Y(centre.c) AS lat,
           ST_X(centre.c) AS lon,
           (SELECT percentile_cont(0.9) WITHIN GROUP (ORDER BY ST_Distance(pts.g::geography, centre.c::geography)) FROM pts) AS p90
    FROM centre`);
  const stats = result.rows[0];
  const members = Number(stats?.members ?? 0);
  if (!stats || members === 0 || stats.lat === null || stats.lon === null) {
    // Nothing to draw from: keep the boundary, but remember that it was looked at (the nightly job moves on).
    const [row] = await tx.update(locations).set({ lastBoundaryUpdate: sql`now()` }).where(eq(locations.id, location.id)).returning();
    if (reason === 'manual') await logModeration(tx, { locationId: location.id, actorId, action: 'boundary_recalculated', details: { reason, members: 0, changed: false, previous } });
    return { location: row, changed: false, members: 0, previous };
  }
  const lat = Number(stats.lat);
  const lon = Number(stats.lon);
  // One point says nothing about the spread (its p90 is 0 m): a one-member location keeps the initial
  // radius, whichever path recalculates it (join, nightly job, update_boundary).
  const radius = members < 2 ? INITIAL_RADIUS_M : boundedRadius(stats.p90 === null ? null : Number(stats.p90));
  const [row] = await tx
    .update(locations)
    .set({
      center: sql`ST_SetSRID(ST_MakePoint(${lon}, ${lat}), 4326)::geography`,
      centerLatitude: lat,
      centerLongitude: lon,
      estimatedRadius: radius,
      // The database clock, like members_changed_at, so the nightly job compares like with like.
      lastBoundaryUpdate: sql`now()`,
      updatedAt: new Date(),
    })
    .where(eq(locations.id, location.id))
    .returning();
  const changed = lat !== previous.center_latitude || lon !== previous.center_longitude || radius !== previous.estimated_radius;
  // A change is always logged; an administrator's request (update_boundary) is logged even when it changed nothing.
  if (changed || reason === 'manual') {
    await logModeration(tx, {
      locationId: location.id,
      actorId,
      action: 'boundary_recalculated',
      details: { reason, members, changed, previous, current: { center_latitude: lat, center_longitude: lon, estimated_radius: radius } },
    });
  }
  if (changed) locationUpdated(events, row);
  return { location: row, changed, members, previous };
}
