import { sql } from 'drizzle-orm';
import { aQuietSpot } from '../helpers/quiet-spot.js';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser, type TestUser } from '../builders/users.js';
import { platform } from '../../src/platform/index.js';
import { snapToCell } from '../../src/modules/locations/public-grid.js';

/**
 * Nearby users never measures to an exact point. The caller chooses its own point freely (update-location),
 * so if the order of two users, or who is inside the 100 km circle, followed exact points, moving a little and
 * asking again would trilaterate anyone. Distances are taken between published grid cells (users.public_point,
 * kept by a trigger with the grid of public-grid.ts), and users of one cell tie, ordered by id.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});


const place = { country: `Ocean ${unique()}`, city: `Raft ${unique()}` };
async function moveTo(user: TestUser, latitude: number, longitude: number): Promise<void> {
  const res = await app.rest('POST', '/api/users/update-location/', { token: user.token, body: { ...place, latitude: latitude.toFixed(6), longitude: longitude.toFixed(6) } });
  if (res.status !== 200) throw new Error(`update-location answered ${res.status}`);
}
const nearbyIds = async (user: TestUser) => {
  const res = await app.rest('GET', '/api/users/nearby-users/', { token: user.token });
  expect(res.status).toBe(200);
  return (res.body.results as Array<{ id: string }>).map((u) => u.id);
};

test('when two users of one grid cell swap their exact points, then the caller sees the same order (a tie by id, not by exact distance)', async () => {
  const base = await aQuietSpot(60);
  const caller = await aUser(app);
  const x = await aUser(app);
  const y = await aUser(app);
  await moveTo(caller, base.latitude, base.longitude);
  // One cell 0.3° north of the caller; x and y inside it, one 440 m nearer the caller than the other.
  const cell = snapToCell(base.latitude + 0.3, base.longitude);
  const near = cell.latitude - 0.002;
  const farther = cell.latitude + 0.002;
  expect(snapToCell(near, cell.longitude)).toEqual(cell);
  expect(snapToCell(farther, cell.longitude)).toEqual(cell);

  await moveTo(x, near, cell.longitude);
  await moveTo(y, farther, cell.longitude);
  const before = await nearbyIds(caller);
  await moveTo(x, farther, cell.longitude);
  await moveTo(y, near, cell.longitude);
  const after = await nearbyIds(caller);

  expect(new Set(before)).toEqual(new Set([x.id, y.id]));
  expect(after).toEqual(before);
  expect(before).toEqual([x.id, y.id].sort());
});

test('when a user sets a point, then the database keeps the centre of its published cell, the same cell the grid of public-grid.ts names', async () => {
  const samples = Array.from({ length: 200 }, () => ({ latitude: -80 + Math.random() * 160, longitude: -180 + Math.random() * 360 }));
  samples.push({ latitude: 0, longitude: 0 }, { latitude: -0.0001, longitude: 179.9999 }, { latitude: 51.5074, longitude: -0.1278 });
  const { rows } = await platform.db.execute<{ lat: number; lon: number }>(sql`
    SELECT ST_Y(public_grid_cell_centre(ST_SetSRID(ST_MakePoint(s.lon, s.lat), 4326)::geography)::geometry) AS lat,
           ST_X(public_grid_cell_centre(ST_SetSRID(ST_MakePoint(s.lon, s.lat), 4326)::geography)::geometry) AS lon
      FROM unnest(${sql.param(samples.map((s) => s.latitude))}::float8[], ${sql.param(samples.map((s) => s.longitude))}::float8[]) WITH ORDINALITY AS s(lat, lon, i)
     ORDER BY s.i`);
  rows.forEach((row, i) => {
    const expected = snapToCell(samples[i].latitude, samples[i].longitude);
    // Both sides round the centre to 6 decimals; a random point whose centre ends in exactly half a unit may round
    // either way in SQL and in JavaScript. Cells are far wider than 1e-6 degrees, so this still names one cell.
    expect(Math.abs(row.lat - expected.latitude)).toBeLessThanOrEqual(1.01e-6);
    expect(Math.abs(row.lon - expected.longitude)).toBeLessThanOrEqual(1.01e-6);
  });

  const user = await aUser(app);
  const spot = await aQuietSpot(60);
  await moveTo(user, spot.latitude, spot.longitude);
  const [stored] = (
    await platform.db.execute<{ lat: number; lon: number }>(sql`SELECT ST_Y(public_point::geometry) AS lat, ST_X(public_point::geometry) AS lon FROM users WHERE id = ${user.id}`)
  ).rows;
  expect({ latitude: stored.lat, longitude: stored.lon }).toEqual(snapToCell(Number(spot.latitude.toFixed(6)), Number(spot.longitude.toFixed(6))));
});
