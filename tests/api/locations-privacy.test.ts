import { nextEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aRemoteSpot, aResident } from '../builders/locations.js';
import { CELL_LAT_DEGREES, cellOf, snapToCell, type Cell } from '../../src/modules/locations/public-grid.js';

/**
 * A location must never let anyone compute a member's point (DESIGN.md section 7), by reading it or by
 * differencing what it publishes as members come. The test builds the same small location twice, in two
 * "worlds" one whole number of grid cells apart in longitude (same latitude row: an exact rotation), with
 * every member inside the same cell in both worlds but at a different spot in it. Whatever the service
 * publishes (every coordinate field over REST, in smart_update's answer, in `location:updated`, and
 * nearby's distances) must then be the same in both worlds, relative to the world's cell: nothing
 * published, and no function of it (a difference of consecutive centres included), can tell where in
 * its cell a member is.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const WORLD_SHIFT = 40; // cells east: about 22 km at these latitudes, far from each other's boundaries.
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** A point at fractions (fNorth, fEast) of the cell, 0..1 from its south-west corner. */
function pointIn(cell: Cell, fNorth: number, fEast: number) {
  return { latitude: round6((cell.row + fNorth) * CELL_LAT_DEGREES), longitude: round6(-180 + ((cell.column + fEast) * 360) / cell.columns) };
}

type Published = { what: string; latitude: number; longitude: number };

/** Every coordinate pair of a location body: the original pair and the centre (those present). */
function coordinatesOf(what: string, body: any): Published[] {
  const pairs: Published[] = [];
  if ('latitude' in body || 'longitude' in body) pairs.push({ what: `${what}.latitude/longitude`, latitude: body.latitude, longitude: body.longitude });
  pairs.push({ what: `${what}.center`, latitude: body.center_latitude, longitude: body.center_longitude });
  return pairs;
}

/** Builds a 3-member location in `world`, members at the given cell fractions; returns everything it published. */
async function buildWorld(base: Cell, world: number, fractions: Array<[number, number]>) {
  const cell: Cell = { ...base, column: base.column + world * WORLD_SHIFT };
  const members = fractions.map(([n, e]) => pointIn(cell, n, e));
  const published: Published[] = [];
  const radii: number[] = [];
  const record = (what: string, body: any) => {
    published.push(...coordinatesOf(what, body));
    radii.push(body.estimated_radius);
  };
  const watcher = await app.socket(); // anonymous, as a stranger would watch
  let id = '';
  const centres: Array<{ latitude: number; longitude: number }> = [];
  for (const [i, point] of members.entries()) {
    const user = await aResident(app);
    const event = i > 0 ? nextEvent(watcher, 'location:updated', 15000) : null;
    const res = await app.rest('POST', '/api/locations/locations/smart_update/', { token: user.token, body: point });
    expect(res.status).toBe(i === 0 ? 201 : 200);
    id = res.body.location.id;
    record(`member ${i + 1} smart_update`, res.body.location);
    if (i === 0) expect(await watcher.timeout(15000).emitWithAck('subscribe', { channel: 'location', id })).toMatchObject({ status: 200 });
    if (event) record(`member ${i + 1} location:updated`, await event);
    const detail = await app.rest('GET', `/api/locations/locations/${id}/`, { token: user.token });
    expect(detail.body.total_users).toBe(i + 1);
    record(`member ${i + 1} detail`, detail.body);
    centres.push({ latitude: detail.body.center_latitude, longitude: detail.body.center_longitude });
    const nearby = await app.rest('GET', '/api/locations/locations/nearby/', { token: user.token, query: { ...pointIn(cell, 0, 0), max_distance: 3 } });
    radii.push(nearby.body.locations.find((l: any) => l.id === id).distance_km);
  }
  watcher.disconnect();
  return { cell, members, published, radii, centres };
}

/** A published pair as (cells north, cells east) of the world's base cell. */
const relative = (cell: Cell, p: { latitude: number; longitude: number }) => {
  const c = cellOf(p.latitude, p.longitude);
  return [c.row - cell.row, c.column - cell.column];
};

describe('a small location never reveals a member point', () => {
  test('when one, two and three members join, then every published coordinate is a grid-cell centre and is the same wherever in their cells the members are (differences included)', async () => {
    const spot = aRemoteSpot();
    const base = cellOf(spot.latitude, spot.longitude);
    const a = await buildWorld(base, 0, [[0.35, 0.4], [0.6, 0.6], [0.5, 0.35]]);
    const b = await buildWorld(base, 1, [[0.6, 0.55], [0.4, 0.4], [0.3, 0.6]]);

    for (const world of [a, b]) {
      expect(world.published.length).toBeGreaterThanOrEqual(3 * 4);
      for (const p of world.published) {
        // A cell centre: it names a cell, not a point in it.
        expect({ what: p.what, ...snapToCell(p.latitude, p.longitude) }).toEqual(p);
      }
    }
    // The members are at other spots of their cells in the two worlds (over 100 m apart) ...
    for (const [i, m] of a.members.entries()) {
      const n = b.members[i];
      expect(relative(a.cell, m)).toEqual(relative(b.cell, n));
      expect(Math.abs(m.latitude - n.latitude) * 111_320).toBeGreaterThan(100);
    }
    // ... and everything published, relative to the world's cell, is the same: radii and nearby distances too.
    expect(b.published.map((p) => [p.what, ...relative(b.cell, p)])).toEqual(a.published.map((p) => [p.what, ...relative(a.cell, p)]));
    expect(b.radii).toEqual(a.radii);
    // The newcomer's point by differencing, p = (n+1)·c' − n·c, is the same in both worlds, so it cannot be
    // either world's newcomer to better than the cell.
    const differenced = (w: typeof a) =>
      w.centres.slice(1).map((c2, k) => relative(w.cell, { latitude: (k + 2) * c2.latitude - (k + 1) * w.centres[k].latitude, longitude: (k + 2) * c2.longitude - (k + 1) * w.centres[k].longitude }));
    expect(differenced(b)).toEqual(differenced(a));
  }, 60_000);
});
