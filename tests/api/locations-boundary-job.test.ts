import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aLocation, offset, moveTo } from '../builders/locations.js';
import { aResident } from '../builders/locations.js';
import { sql } from '../helpers/sql.js';
import { recalculateChangedBoundaries } from '../../src/modules/locations/boundary.job.js';

/**
 * The nightly boundary job recalculates every location whose members changed since its last
 * recalculation, each in its own transaction: one location that cannot be recalculated is counted and
 * left for the next run, and the others are still recalculated.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  // The suite's files share one database: every location an earlier file left due would be recalculated by this
  // file's job runs (minutes on a loaded machine) and counted in their reports. They are marked up to date, so the
  // job sees only this file's locations.
  await sql('UPDATE locations SET last_boundary_update = members_changed_at WHERE last_boundary_update IS NULL OR last_boundary_update < members_changed_at');
});
afterAll(async () => {
  await app.stop();
});

/** A location of three members, spread out, whose boundary is due (its last recalculation predates its members' change). */
async function aDueLocation() {
  const place = await aLocation(app, { size: 1 });
  for (const [north, east] of [[300, 0], [0, 300]]) await moveTo(app, await aResident(app), offset(place.spot, north, east));
  await sql(`UPDATE locations SET last_boundary_update = members_changed_at - interval '1 hour', estimated_radius = 2000 WHERE id = $1`, [place.id]);
  return place.id;
}

const stateOf = async (id: string) =>
  (await sql<{ radius: number; due: boolean }>('SELECT estimated_radius AS radius, last_boundary_update < members_changed_at AS due FROM locations WHERE id = $1', [id]))[0];

describe('nightly boundary recalculation', () => {
  // On the embedded database this also checks that a failed UPDATE leaves the connection in step for the next
  // location's transaction (PGlite's premature ReadyForQuery once desynchronised it: embedded-db-wire.ts).
  test('when one due location cannot be recalculated, then it is counted as failed, stays due, and the other due locations are still recalculated', async () => {
    const [first, broken, last] = [await aDueLocation(), await aDueLocation(), await aDueLocation()];
    // A real failure: a constraint that this location's recalculated row violates (any new
    // last_boundary_update), so its UPDATE errors in PostgreSQL and its transaction rolls back.
    const constraint = `test_boundary_job_refuses_${broken.replace(/-/g, '')}`;
    await sql(`ALTER TABLE locations ADD CONSTRAINT ${constraint} CHECK (id <> '${broken}' OR last_boundary_update < members_changed_at) NOT VALID`);
    try {
      const report = await recalculateChangedBoundaries();
      expect(report.failed).toBe(1);
      expect(report.recalculated).toBeGreaterThanOrEqual(2);
    } finally {
      await sql(`ALTER TABLE locations DROP CONSTRAINT ${constraint}`);
    }
    expect(await stateOf(broken)).toEqual({ radius: 2000, due: true });
    for (const id of [first, last]) {
      const state = await stateOf(id);
      expect(state.due).toBe(false);
      expect(state.radius).toBeLessThan(2000);
    }
    // The next run picks the failed one up.
    const next = await recalculateChangedBoundaries();
    expect(next).toEqual({ recalculated: 1, failed: 0 });
    expect((await stateOf(broken)).due).toBe(false);
  });
});
