/**
 * When and how far a boundary is drawn (contract boundary rules, DESIGN.md section 8).
 *
 * A join recalculates the boundary while the cluster is young (2 to 4 members: each one moves the
 * centre a lot) and when the user count reaches 5, 10, 25, 50, 100 and every further 100. Between those
 * counts a newcomer is by definition already inside the boundary, so it barely moves, and skipping the
 * recalculation keeps a join O(1) in busy places; the nightly job recalculates every location whose
 * members changed since its last recalculation, and administrators can force one (update_boundary).
 * A location of one user keeps the initial 500 m: one point says nothing about the spread.
 */
export const MIN_RADIUS_M = 200;
export const MAX_RADIUS_M = 2000;
export const INITIAL_RADIUS_M = 500;
const MILESTONES = new Set([5, 10, 25, 50]);

export function isBoundaryRecalculationDue(totalUsers: number): boolean {
  if (totalUsers >= 2 && totalUsers < 5) return true;
  if (MILESTONES.has(totalUsers)) return true;
  return totalUsers >= 100 && totalUsers % 100 === 0;
}

/** The radius from the 90th-percentile distance: whole metres, bounded 200..2000. */
export function boundedRadius(p90Metres: number | null | undefined): number {
  if (p90Metres === null || p90Metres === undefined || !Number.isFinite(p90Metres)) return INITIAL_RADIUS_M;
  return Math.min(MAX_RADIUS_M, Math.max(MIN_RADIUS_M, Math.round(p90Metres)));
}
