import { and, asc, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { JobDefinition } from '../../core/job-definition.js';
import { locations } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { recalculateBoundary } from './boundary.service.js';
import { lockLocation } from './locations.queries.js';

/**
 * Nightly: recalculate the boundary of every location whose members (or their coordinates) changed
 * since its last recalculation (`members_changed_at`, kept by a trigger on users whatever moved them).
 * One short transaction per location, in batches, so the job never holds many locks, and one location
 * that fails (a lock that times out, a row the recalculation cannot write) is logged, counted and left
 * for the next run: it rolls back alone and the job carries on with the others.
 */
const BATCH = 200;

export interface BoundaryJobReport {
  recalculated: number;
  failed: number;
}

export async function recalculateChangedBoundaries(): Promise<BoundaryJobReport> {
  const report: BoundaryJobReport = { recalculated: 0, failed: 0 };
  const startedAt = new Date();
  // Keyset pagination over (members_changed_at, id): a failed location stays due, so a plain "first
  // 200 due" query would return it again and again; the cursor moves past it. Members that change
  // while the job runs get members_changed_at after startedAt, and wait for the next run.
  let after: { changedAt: string; id: string } | null = null;
  for (;;) {
    const due: Array<{ id: string; changedAt: string }> = await platform.db
      // As text: microseconds, which a JS Date would cut to milliseconds and so move the cursor backwards.
      .select({ id: locations.id, changedAt: sql<string>`${locations.membersChangedAt}::text` })
      .from(locations)
      .where(
        and(
          isNotNull(locations.membersChangedAt),
          lt(locations.membersChangedAt, startedAt),
          or(isNull(locations.lastBoundaryUpdate), sql`${locations.lastBoundaryUpdate} < ${locations.membersChangedAt}`),
          after ? sql`(${locations.membersChangedAt}, ${locations.id}) > (${after.changedAt}::timestamptz, ${after.id}::uuid)` : undefined,
        ),
      )
      .orderBy(asc(locations.membersChangedAt), asc(locations.id))
      .limit(BATCH);
    for (const { id } of due) {
      try {
        await transaction(platform.db, async (tx, events) => recalculateBoundary(tx, events, await lockLocation(tx, id), 'nightly'));
        report.recalculated++;
      } catch (err) {
        report.failed++;
        platform.log.error({ err, locationId: id }, 'boundary recalculation failed; the location stays due for the next run');
      }
    }
    if (due.length < BATCH) return report;
    const last = due[due.length - 1];
    after = { changedAt: last.changedAt, id: last.id };
  }
}

export const boundaryRecalculationJob: JobDefinition = {
  name: 'locations.boundaries',
  schedule: '30 3 * * *',
  // The report is logged with the run's duration (jobs/index.ts).
  run: () => recalculateChangedBoundaries(),
};
