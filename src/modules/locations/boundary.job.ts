import { and, asc, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { JobDefinition } from '../../jobs/index.js';
import { locations } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { recalculateBoundary } from './boundary.service.js';
import { lockLocation } from './locations.queries.js';

/**
 * Nightly: recalculate the boundary of every location whose members (or their coordinates) changed
 * since its last recalculation (`members_changed_at`, kept by a trigger on users whatever moved them).
 * One short transaction per location, in batches, so the job never holds many locks.
 */
const BATCH = 200;

export async function recalculateChangedBoundaries(): Promise<number> {
  const seen = new Set<string>();
  const startedAt = new Date();
  for (;;) {
    const due = await platform.db
      .select({ id: locations.id })
      .from(locations)
      .where(
        and(
          isNotNull(locations.membersChangedAt),
          lt(locations.membersChangedAt, startedAt),
          or(isNull(locations.lastBoundaryUpdate), sql`${locations.lastBoundaryUpdate} < ${locations.membersChangedAt}`),
        ),
      )
      .orderBy(asc(locations.membersChangedAt))
      .limit(BATCH);
    const fresh = due.filter((d) => !seen.has(d.id));
    if (!fresh.length) return seen.size;
    for (const { id } of fresh) {
      seen.add(id);
      await transaction(platform.db, async (tx, events) => recalculateBoundary(tx, events, await lockLocation(tx, id), 'nightly'));
    }
  }
}

export const boundaryRecalculationJob: JobDefinition = {
  name: 'locations.boundaries',
  schedule: '30 3 * * *',
  run: async () => {
    const count = await recalculateChangedBoundaries();
    platform.log.info({ count }, 'location boundaries recalculated');
  },
};
