import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { aLocation, aRemoteSpot, offset } from '../builders/locations.js';
import { sql } from '../helpers/sql.js';
import { snapToCell } from '../../src/modules/locations/public-grid.js';

/**
 * Joining or leaving a location by any path (not only smart_update) brings it up to date: the joined
 * location's boundary when its count is due, and the confidence of both (it depends on total_users).
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const locationRow = async (id: string) =>
  (
    await sql<{ total_users: number; center_latitude: number | null; center_longitude: number | null; estimated_radius: number; last_boundary_update: Date | null; confidence_score: number; exact_latitude: number | null; exact_longitude: number | null; member_radius: number | null }>(
      `SELECT total_users, center_latitude, center_longitude, estimated_radius, last_boundary_update, confidence_score,
              ST_Y(member_centroid::geometry) AS exact_latitude, ST_X(member_centroid::geometry) AS exact_longitude, member_radius FROM locations WHERE id = $1`,
      [id],
    )
  )[0];

const logOf = (locationId: string) =>
  sql<{ action: string; actor_id: string | null; details: any }>('SELECT action, actor_id, details FROM location_moderation_logs WHERE location_id = $1 ORDER BY created_at, id', [locationId]);

/** The confidence of docs/modules/locations.md with no name suggestions: 0.3 × min(1, ln(1 + total_users) ÷ ln 21), to 4 places. */
const populationOnlyConfidence = (totalUsers: number) => Math.round(0.3 * Math.min(1, Math.log(1 + totalUsers) / Math.log(21)) * 1e4) / 1e4;

describe('joining a location through update-location', () => {
  test('when a second user reaches a location through update-location with coordinates, then its boundary is recalculated around both and the join is logged', async () => {
    const spot = aRemoteSpot();
    const north = offset(spot, 300, 0);
    const address = { country: `Country ${unique()}`, city: `City ${unique()}` };
    const alice = await aUser(app);
    const bob = await aUser(app);

    const first = await app.rest('POST', '/api/users/update-location/', { token: alice.token, body: { ...address, ...spot } });
    expect(first.status).toBe(200);
    const id = first.body.location.id;
    const before = await locationRow(id);
    const cell = snapToCell(spot.latitude, spot.longitude);
    expect(before).toMatchObject({ total_users: 1, center_latitude: cell.latitude, center_longitude: cell.longitude, exact_latitude: spot.latitude, exact_longitude: spot.longitude });

    const second = await app.rest('POST', '/api/users/update-location/', { token: bob.token, body: { ...address, ...north } });
    expect(second).toMatchObject({ status: 200, body: { location: { id } } });

    const after = await locationRow(id);
    expect(after.total_users).toBe(2);
    // The exact centre moves half way to the newcomer; 150 m from each member is under the 200 m floor.
    expect(after.exact_latitude).toBeCloseTo((spot.latitude + north.latitude) / 2, 5);
    expect(after.exact_longitude).toBeCloseTo(spot.longitude, 5);
    expect(after.member_radius).toBe(200);
    // The published boundary does not move for two members (public-grid.ts: fewer than ten).
    expect(after).toMatchObject({ center_latitude: cell.latitude, center_longitude: cell.longitude, estimated_radius: 500 });
    expect(after.last_boundary_update).not.toBeNull();
    expect(after.last_boundary_update).not.toEqual(before.last_boundary_update);
    expect(await logOf(id)).toEqual([
      { action: 'boundary_recalculated', actor_id: bob.id, details: expect.objectContaining({ reason: 'join', members: 2, changed: true }) },
    ]);
    // Confidence follows the new count as well (nobody suggested a name: population only).
    expect(after.confidence_score).toBeCloseTo(populationOnlyConfidence(2), 4);
  });
});

describe('leaving a location through update-location', () => {
  test('when a resident moves away through update-location (socket), then the location left gets its confidence recomputed for its smaller population', async () => {
    const place = await aLocation(app, { size: 2 });
    expect(await locationRow(place.id)).toMatchObject({ total_users: 2, confidence_score: populationOnlyConfidence(2) });

    const moved = await app.emit('users.update_location', { country: `Country ${unique()}`, city: `Elsewhere ${unique()}` }, { token: place.residents[0].token });
    expect(moved.status).toBe(200);
    expect(moved.body.location.id).not.toBe(place.id);

    const left = await locationRow(place.id);
    expect(left.total_users).toBe(1);
    expect(left.confidence_score).toBeCloseTo(populationOnlyConfidence(1), 4);
    expect(left.confidence_score).toBeLessThan(populationOnlyConfidence(2));
  });
});
