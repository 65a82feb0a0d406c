import { and, asc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { PendingEvents } from '../../core/events.js';
import type { Tx } from '../../platform/db.js';
import { HIERARCHY_LEVELS, locations, users, type HierarchyLevel } from '../../models/index.js';
import { pointEwkt } from '../../models/geography.js';
import { isBoundaryRecalculationDue } from './boundary-policy.js';
import { snapToCell } from './public-grid.js';
import { recalculateBoundary } from './boundary.service.js';
import { refreshConsensus } from './consensus.service.js';

declare module '../../core/events.js' {
  interface DomainEventMap {
    /** The user's sockets follow it from one location room to the other. */
    'user.location_changed': { userId: string; fromLocationId: string | null; toLocationId: string | null };
  }
}

export type Hierarchy = Partial<Record<HierarchyLevel, string | null>>;

/** A location's display name from its hierarchy: the most specific level that is set. */
export function nameFromHierarchy(h: Hierarchy): string {
  for (let i = HIERARCHY_LEVELS.length - 1; i >= 0; i--) {
    const value = h[HIERARCHY_LEVELS[i]]?.trim();
    if (value) return value;
  }
  return '';
}

/*
 * LOCK ORDER for every path that moves a user between locations (smart_update, update-location, a profile's
 * location object, registration) or touches a location's membership:
 *   1. the user row (FOR NO KEY UPDATE, `lockUserForMove`), or the new user row being inserted;
 *   2. the address lock (`findOrCreateLocationByHierarchy`) or the area locks of smart_update (advisory);
 *   3. the location rows, all of them at once, in id order (`assignUserLocation`), and only then any write
 *      to a location (point, counts, boundary, consensus, the members trigger).
 * A path that needs fewer locks takes a prefix of these in the same order. Taken in opposite orders by
 * two transactions, two locks deadlock and PostgreSQL aborts one of them (a 500): a profile update used to
 * lock the user row before the address lock while update-location took them the other way round, and a
 * location's first point was written before the location left was locked.
 * Paths that lock a single location and no user (suggest_name, flag, update_boundary, the nightly job)
 * only take KEY SHARE on user rows through foreign keys, which no move's FOR NO KEY UPDATE conflicts with.
 */

/** Step 1 of the lock order: the user row, until the transaction ends. Returns where the user lives now. */
export async function lockUserForMove(tx: Tx, userId: string): Promise<{ locationId: string | null } | null> {
  // NO KEY UPDATE, not UPDATE: the user's own inserts elsewhere (a name suggestion) take KEY SHARE on this
  // row through their foreign key, and FOR UPDATE would make that user's concurrent requests deadlock.
  const [row] = await tx.select({ locationId: users.locationId }).from(users).where(eq(users.id, userId)).for('no key update');
  return row ?? null;
}

/**
 * Find the location whose hierarchy equals the given levels (case-insensitive; levels not given must be
 * empty there too), or create it. Step 2 of the lock order: the caller holds the user row already, and
 * nothing here locks an existing location (a point it lacks is written by `moveUserToAddress`, after step 3).
 */
export async function findOrCreateLocationByHierarchy(tx: Tx, h: Hierarchy, coords?: { latitude: number; longitude: number }): Promise<{ id: string; name: string; hasPoint: boolean }> {
  const conditions: SQL[] = HIERARCHY_LEVELS.map((level) => {
    const value = h[level]?.trim();
    return value ? sql`lower(${locations[level]}) = lower(${value})` : sql`coalesce(${locations[level]}, '') = ''`;
  });
  // Two users sending the same new address at once must not create it twice: the lookup and the insert
  // run one address at a time (the lock is held until the transaction ends).
  const addressKey = HIERARCHY_LEVELS.map((level) => h[level]?.trim().toLowerCase() ?? '').join('|');
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`location-hierarchy|${addressKey}`}, 0))`);
  const [existing] = await tx.select({ id: locations.id, name: locations.name, point: locations.point }).from(locations).where(and(...conditions)).limit(1);
  if (existing) return { id: existing.id, name: existing.name, hasPoint: existing.point !== null };
  const levels = Object.fromEntries(HIERARCHY_LEVELS.map((l) => [l, h[l]?.trim() || null]));
  const cell = coords ? snapToCell(coords.latitude, coords.longitude) : null;
  const point = cell ? pointEwkt(cell.longitude, cell.latitude) : null;
  const [created] = await tx
    .insert(locations)
    .values({
      ...levels,
      name: nameFromHierarchy(h),
      latitude: cell?.latitude ?? null,
      longitude: cell?.longitude ?? null,
      point,
      center: point,
      centerLatitude: cell?.latitude ?? null,
      centerLongitude: cell?.longitude ?? null,
      memberCentroid: coords ? pointEwkt(coords.longitude, coords.latitude) : null,
    })
    .returning({ id: locations.id, name: locations.name });
  return { ...created, hasPoint: point !== null };
}

/**
 * update-location and a profile's location object: move the user to the location named by an address
 * (matched or created), in the lock order above. Coordinates are stored on the user, and on a location
 * that had none.
 */
export async function moveUserToAddress(tx: Tx, events: PendingEvents, userId: string, h: Hierarchy, coords?: { latitude: number; longitude: number }): Promise<{ id: string; name: string }> {
  await lockUserForMove(tx, userId);
  const location = await findOrCreateLocationByHierarchy(tx, h, coords);
  await assignUserLocation(tx, events, userId, location.id, coords);
  if (!location.hasPoint && coords) {
    // Locked by assignUserLocation (step 3); `point IS NULL` again, since a concurrent move may have set it first.
    // The location's coordinates are published: the cell of the point, never the point (public-grid.ts).
    const cell = snapToCell(coords.latitude, coords.longitude);
    await tx
      .update(locations)
      .set({ latitude: cell.latitude, longitude: cell.longitude, point: pointEwkt(cell.longitude, cell.latitude), updatedAt: new Date() })
      .where(and(eq(locations.id, location.id), isNull(locations.point)));
  }
  return { id: location.id, name: location.name };
}

export interface MembershipOptions {
  /**
   * false: the caller brings the joined location up to date itself, right after, in the same transaction
   * (smart_update fills in the address first and records a suggested name with the consensus). The
   * location left is refreshed either way.
   */
  refreshJoined?: boolean;
}

/**
 * Move a user to a location (or to none), keeping both locations' total_users exact: the user row is
 * locked first, so two concurrent moves of one user cannot count it twice. Whatever the path (smart_update,
 * update-location, profile update, registration), a real move then brings both locations up to date
 * (DESIGN.md section 8): the one joined gets its boundary recalculated when its new count is due and its
 * consensus refreshed, the one left its consensus (confidence depends on total_users); the left one's
 * boundary waits for the nightly job.
 */
export async function assignUserLocation(
  tx: Tx,
  events: PendingEvents,
  userId: string,
  toLocationId: string | null,
  coords?: { latitude: number; longitude: number },
  options: MembershipOptions = {},
): Promise<void> {
  // Steps 1 and 3 of the lock order (a no-op re-lock when the caller took step 1 already).
  const current = await lockUserForMove(tx, userId);
  const fromLocationId = current?.locationId ?? null;
  // Both locations are locked in id order before anything else touches them: the users update below
  // locks them too (foreign-key check, members trigger, total_users), in whatever order the move goes,
  // and two users crossing between the same two places at once would otherwise deadlock.
  const involved = [fromLocationId, toLocationId].filter((id): id is string => id !== null);
  if (involved.length) await tx.select({ id: locations.id }).from(locations).where(inArray(locations.id, involved)).orderBy(asc(locations.id)).for('update');
  const changes: Partial<typeof users.$inferInsert> = { locationId: toLocationId, updatedAt: new Date() };
  if (coords) Object.assign(changes, { latitude: coords.latitude.toFixed(8), longitude: coords.longitude.toFixed(8), point: pointEwkt(coords.longitude, coords.latitude) });
  await tx.update(users).set(changes).where(eq(users.id, userId));
  if (fromLocationId === toLocationId) return;
  // Both rows are already locked above, so the refreshes below add no lock and keep the order.
  if (fromLocationId) {
    const [left] = await tx.update(locations).set({ totalUsers: sql`greatest(${locations.totalUsers} - 1, 0)` }).where(eq(locations.id, fromLocationId)).returning();
    if (left) await refreshConsensus(tx, events, left, userId);
  }
  if (toLocationId) {
    const [joined] = await tx.update(locations).set({ totalUsers: sql`${locations.totalUsers} + 1` }).where(eq(locations.id, toLocationId)).returning();
    if (joined && options.refreshJoined !== false) {
      // The user's new point is already stored above, so the boundary is drawn with it.
      const location = isBoundaryRecalculationDue(joined.totalUsers) ? (await recalculateBoundary(tx, events, joined, 'join', userId)).location : joined;
      await refreshConsensus(tx, events, location, userId);
    }
  }
  events.add('user.location_changed', { userId, fromLocationId, toLocationId });
}
