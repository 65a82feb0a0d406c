import { eq, sql } from 'drizzle-orm';
import type { PendingEvents } from '../../core/events.js';
import type { Tx } from '../../platform/db.js';
import { locations, users, type LocationRow } from '../../models/index.js';
import { pointEwkt } from '../../models/geography.js';
import { INITIAL_RADIUS_M, boundedRadius } from './boundary-policy.js';
import { K_MEMBERS, publishedRadius, snapToCell } from './public-grid.js';
import { locationUpdated } from './location-events.js';
import { logModeration } from './moderation-log.js';

export type BoundaryReason = 'join' | 'nightly' | 'manual';

export interface BoundaryResult {
  location: LocationRow;
  /** The published or the internal (exact) boundary changed. */
  changed: boolean;
  /** Members with coordinates that the boundary was drawn from (0: nothing to draw from, unchanged). */
  members: number;
  /** The published boundary before (what everyone could already see). */
  previous: { center_latitude: number | null; center_longitude: number | null; estimated_radius: number };
}

/**
 * The boundary a location publishes (public-grid.ts). From K_MEMBERS members with coordinates on: the
 * cell of their centroid and the radius in 100 m steps. Below: the cell the location began in (or, for a
 * location that had no coordinates, the cell it is first published in) and the initial 500 m, whatever
 * the members do, so that no join of a few people moves anything anyone can see.
 */
export function publishedBoundary(location: Pick<LocationRow, 'latitude' | 'longitude' | 'centerLatitude' | 'centerLongitude'>, members: number, centroid: { latitude: number; longitude: number }, radius: number) {
  if (members >= K_MEMBERS) return { ...snapToCell(centroid.latitude, centroid.longitude), radius: publishedRadius(radius) };
  const origin =
    location.latitude !== null && location.longitude !== null
      ? { latitude: location.latitude, longitude: location.longitude }
      : location.centerLatitude !== null && location.centerLongitude !== null
        ? { latitude: location.centerLatitude, longitude: location.centerLongitude }
        : centroid;
  return { ...snapToCell(origin.latitude, origin.longitude), radius: INITIAL_RADIUS_M };
}

async function sameCentroid(tx: Tx, locationId: string, before: string | null): Promise<boolean> {
  if (before === null) return false;
  const result = await tx.execute<{ same: boolean }>(sql`SELECT ST_Equals(${locations.memberCentroid}::geometry, ${before}::geography::geometry) AS same FROM ${locations} WHERE ${locations.id} = ${locationId}`);
  return result.rows[0]?.same === true;
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
  const published = publishedBoundary(location, members, { latitude: lat, longitude: lon }, radius);
  const [row] = await tx
    .update(locations)
    .set({
      memberCentroid: sql`ST_SetSRID(ST_MakePoint(${lon}, ${lat}), 4326)::geography`,
      memberRadius: radius,
      center: pointEwkt(published.longitude, published.latitude),
      centerLatitude: published.latitude,
      centerLongitude: published.longitude,
      estimatedRadius: published.radius,
      // A location that had no coordinates yet begins in the cell it is first published in.
      ...(location.point === null ? { latitude: published.latitude, longitude: published.longitude, point: pointEwkt(published.longitude, published.latitude) } : {}),
      // The database clock, like members_changed_at, so the nightly job compares like with like.
      lastBoundaryUpdate: sql`now()`,
      updatedAt: new Date(),
    })
    .where(eq(locations.id, location.id))
    .returning();
  const publishedChanged = published.latitude !== previous.center_latitude || published.longitude !== previous.center_longitude || published.radius !== previous.estimated_radius;
  const exactChanged = location.memberRadius !== radius || !(await sameCentroid(tx, location.id, location.memberCentroid));
  const changed = publishedChanged || exactChanged;
  // A change is always logged (the log is internal: it keeps the exact boundary); an administrator's request
  // (update_boundary) is logged even when it changed nothing.
  if (changed || reason === 'manual') {
    await logModeration(tx, {
      locationId: location.id,
      actorId,
      action: 'boundary_recalculated',
      details: {
        reason,
        members,
        changed,
        previous,
        current: { center_latitude: published.latitude, center_longitude: published.longitude, estimated_radius: published.radius },
        members_boundary: { center_latitude: lat, center_longitude: lon, radius },
      },
    });
  }
  // Only what is published is pushed: an event for an internal change alone would itself tell that one happened.
  if (publishedChanged) locationUpdated(events, row);
  return { location: row, changed, members, previous };
}
