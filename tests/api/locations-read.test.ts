import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aLocation, aRemoteSpot, aResident, adminEnv, loginAdmin, offset } from '../builders/locations.js';
import { snapToCell } from '../../src/modules/locations/public-grid.js';
import { sql } from '../helpers/sql.js';

let app: TestApp;
const admin = adminEnv();
let adminToken: string;
beforeAll(async () => {
  app = await startTestApp(admin);
  adminToken = await loginAdmin(app, admin);
});
afterAll(async () => {
  await app.stop();
});

/** REST and socket answer the same; returns the REST answer. */
async function both(op: string, method: string, path: string, input: Record<string, unknown>, token: string, query?: Record<string, unknown>) {
  const rest = await app.rest(method, path, method === 'GET' ? { token, query: query ?? input } : { token, body: input });
  const socket = await app.emit(op, { ...input, ...(query ?? {}) }, { token });
  expect(socket).toEqual({ status: rest.status, body: rest.body });
  return rest;
}

const COORDINATE_ERROR = { longitude: ['Invalid coordinate value.'], latitude: ['Invalid coordinate value.'] };
const FORBIDDEN = { detail: 'You do not have permission to perform this action.' };

describe('nearby and search', () => {
  test('when locations lie 0.5, 2 and 8 km away, then nearby lists those within max_distance, nearest first, with distance_km', async () => {
    const origin = aRemoteSpot();
    const near = await aLocation(app, { name: 'Near' });
    const names = [unique('Kelp '), unique('Kelp '), unique('Kelp ')];
    const ids: string[] = [];
    for (const [i, km] of [0.5, 2, 8].entries()) {
      const u = await aResident(app);
      const res = await app.rest('POST', '/api/locations/locations/smart_update/', { token: u.token, body: { ...offset(origin, km * 1000, 0), geocoded_data: { address: { city: names[i] } } } });
      ids.push(res.body.location.id);
    }
    const token = near.residents[0].token;
    const res = await both('locations.nearby', 'GET', '/api/locations/locations/nearby/', { latitude: String(origin.latitude), longitude: String(origin.longitude) }, token);
    expect(res.status).toBe(200);
    expect(res.body.locations.map((l: any) => l.id)).toEqual(ids.slice(0, 2));
    expect(res.body.count).toBe(2);
    expect(res.body.locations[0]).toEqual({ id: ids[0], name: names[0], confidence_score: expect.any(Number), estimated_radius: 500, distance_km: expect.any(Number), total_users: 1 });
    // Measured to the published centre (a grid-cell centre, at most 400 m from the member's point).
    expect(Math.abs(res.body.locations[0].distance_km - 0.5)).toBeLessThanOrEqual(0.4);
    const wide = await app.rest('GET', '/api/locations/locations/nearby/', { token, query: { ...origin, max_distance: 10 } });
    expect(wide.body.locations.map((l: any) => l.id)).toEqual(ids);
    // A blank max_distance (a form field left empty) is the default 5 km, not an error.
    const blank = await app.rest('GET', '/api/locations/locations/nearby/', { token, query: { ...origin, max_distance: '' } });
    expect(blank.status).toBe(200);
    expect(blank.body.locations.map((l: any) => l.id)).toEqual(ids.slice(0, 2));
  });

  test('when nearby gets bad coordinates or distance, then the coordinate error or a field error', async () => {
    const { token } = await aResident(app);
    for (const query of [{}, { latitude: 'x', longitude: 1 }, { latitude: 1, longitude: 200 }]) {
      expect(await both('locations.nearby', 'GET', '/api/locations/locations/nearby/', query, token)).toMatchObject({ status: 400, body: COORDINATE_ERROR });
    }
    expect((await app.rest('GET', '/api/locations/locations/nearby/', { token, query: { latitude: 1, longitude: 1, max_distance: -1 } })).body).toHaveProperty('max_distance');
  });

  test('when searching a misspelt name, then fuzzy matches come first; with coordinates, the nearest first', async () => {
    const word = unique('Zq').toLowerCase();
    const far = await aLocation(app, { name: `Port ${word}` });
    const close = await aLocation(app, { name: `${word} Harbour` });
    const token = far.residents[0].token;
    const misspelt = `Port ${word.slice(0, -1)}`;
    const res = await both('locations.search', 'GET', '/api/locations/locations/search/', { q: misspelt }, token);
    expect(res.body).toMatchObject({ query: misspelt });
    expect(res.body.locations[0]).toEqual({ id: far.id, name: `Port ${word}`, confidence_score: expect.any(Number), total_users: 1, city: `Port ${word}`, state: null });
    const byDistance = await both('locations.search', 'GET', '/api/locations/locations/search/', { q: word, ...close.spot }, token);
    expect(byDistance.body.locations.map((l: any) => l.id).slice(0, 2)).toEqual([close.id, far.id]);
  });

  test('when the search query is empty, then 400', async () => {
    const { token } = await aResident(app);
    expect(await both('locations.search', 'GET', '/api/locations/locations/search/', { q: '  ' }, token)).toMatchObject({ status: 400, body: { error: 'Query parameter is required' } });
  });

  test('when the search query is longer than any location name, then 400 before the database does trigram work on it', async () => {
    const { token } = await aResident(app);
    // Trigram matching costs grow with the query: 200,000 characters kept PostgreSQL busy for 10 s on 100,000 locations.
    const res = await both('locations.search', 'GET', '/api/locations/locations/search/', { q: 'a'.repeat(101) }, token);
    expect(res).toMatchObject({ status: 400, body: { q: ['Ensure this field has no more than 100 characters.'] } });
    expect((await both('locations.search', 'GET', '/api/locations/locations/search/', { q: 'a'.repeat(100) }, token)).status).toBe(200);
  });
});

describe('list and detail', () => {
  test('when filtering by city and ordering, then list items carry is_high_confidence, top_suggestions, post_count and store_count', async () => {
    const city = unique('Listcity ');
    const a = await aLocation(app, { name: city, size: 2 });
    await app.rest('POST', `/api/locations/locations/${a.id}/suggest_name/`, { token: a.residents[0].token, body: { name: 'Sea Glass' } });
    const token = a.residents[0].token;
    for (const [op, path] of [['locations.list', '/api/locations/locations/'], ['locations.legacy_list', '/api/locations/']]) {
      const res = await both(op, 'GET', path, { city: city.toUpperCase(), order_by_confidence: 'true', order_by_posts: 'true' }, token);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ count: 1, next: null, previous: null });
      expect(res.body.results[0]).toMatchObject({ id: a.id, name: city, city, total_users: 2, is_high_confidence: false, top_suggestions: [{ name: 'Sea Glass', votes: 0.05 }], post_count: 0, store_count: 0 });
    }
    const none = await app.rest('GET', '/api/locations/locations/', { token, query: { city, min_confidence: 0.9 } });
    expect(none.body.count).toBe(0);
  });

  test('when reading one location over both paths and transports, then the full resource; unknown ids 404', async () => {
    const a = await aLocation(app, { size: 1 });
    const token = a.residents[0].token;
    const res = await both('locations.detail', 'GET', `/api/locations/locations/${a.id}/`, { location_id: a.id }, token, {});
    // The original pair is published as the centre of its grid cell, never the creator's point.
    expect(res.body).toMatchObject({ id: a.id, name: a.name, ...snapToCell(a.spot.latitude, a.spot.longitude), estimated_radius: 500, total_users: 1, needs_verification: false, is_auto_generated: false, moderator_approved: false, post_count: 0 });
    const legacy = await both('locations.legacy_detail', 'GET', `/api/locations/${a.id}/`, { location_id: a.id }, token, {});
    expect(legacy.body).toEqual(res.body);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(await both('locations.detail', 'GET', `/api/locations/locations/${unknown}/`, { location_id: unknown }, token, {})).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
  });
});

describe('moderation', () => {
  test('when a user flags a location, then it needs verification and analytics counts it (staff only)', async () => {
    const staff = await aResident(app);
    await app.rest('PATCH', `/api/admin/users/${staff.username}/`, { token: adminToken, body: { is_staff: true } });
    const analytics = async () => (await both('locations.analytics', 'GET', '/api/locations/locations/analytics/', {}, staff.token)).body;
    const before = await analytics();
    expect(before.summary).toEqual({ total_locations: expect.any(Number), low_confidence_count: expect.any(Number), needs_verification_count: expect.any(Number), auto_generated_count: expect.any(Number), recent_suggestions_count: expect.any(Number) });

    // Two new locations (one geocoded, one auto-generated), both of low confidence; one flagged, one named.
    const a = await aLocation(app, { size: 1 });
    const user = a.residents[0];
    const loner = await aResident(app);
    expect((await app.rest('POST', '/api/locations/locations/smart_update/', { token: loner.token, body: aRemoteSpot() })).status).toBe(201);
    const flag = await app.rest('POST', `/api/locations/locations/${a.id}/flag_for_review/`, { token: user.token, body: { reason: 'Wrong name' } });
    expect(flag).toMatchObject({ status: 200, body: { message: 'Location flagged for review', location_id: a.id, needs_verification: true } });
    const flagSocket = await app.emit('locations.flag_for_review', { location_id: a.id, reason: 'Wrong name' }, { token: user.token });
    expect(flagSocket).toEqual({ status: 200, body: flag.body });
    expect((await app.rest('POST', `/api/locations/locations/${a.id}/suggest_name/`, { token: user.token, body: { name: 'Counted Place' } })).status).toBe(200);
    expect(await both('locations.analytics', 'GET', '/api/locations/locations/analytics/', {}, user.token)).toMatchObject({ status: 403, body: FORBIDDEN });

    const after = await analytics();
    const increase = Object.fromEntries(Object.keys(before.summary).map((k) => [k, after.summary[k] - before.summary[k]]));
    expect(increase).toEqual({ total_locations: 2, low_confidence_count: 2, needs_verification_count: 1, auto_generated_count: 1, recent_suggestions_count: 1 });
    expect(after.top_locations[0]).toEqual({ id: expect.any(String), name: expect.any(String), total_users: expect.any(Number), confidence_score: expect.any(Number) });
  });

  test('when an administrator recalculates a boundary, then centre = centroid and radius = bounded 90th percentile of member distances', async () => {
    const spot = aRemoteSpot();
    const city = unique('Spread ');
    const norths = [0, 400, -400, 800, -800, 1200, -1200, 1600, -1600, 2400];
    // Members placed by address (users.update_location): the same location, coordinates wherever they are.
    // All join first without coordinates (a join at a milestone count redraws the boundary, and there is
    // nothing to draw from yet), then send their coordinates, which moves nobody and redraws nothing: the
    // administrator's recalculation below is the first to see the spread.
    const members = [];
    for (let i = 0; i < norths.length; i++) {
      const u = await aResident(app);
      const res = await app.rest('POST', '/api/users/update-location/', { token: u.token, body: { country: 'Testland', city } });
      expect(res.status).toBe(200);
      members.push(u);
    }
    for (const [i, north] of norths.entries()) {
      const res = await app.rest('POST', '/api/users/update-location/', { token: members[i].token, body: { country: 'Testland', city, ...offset(spot, north, 0) } });
      expect(res.status).toBe(200);
    }
    const id = (await app.rest('GET', '/api/users/profile/', { token: members[0].token })).body.location.id;
    const denied = await both('locations.update_boundary', 'POST', `/api/locations/locations/${id}/update_boundary/`, { location_id: id }, members[0].token);
    expect(denied).toMatchObject({ status: 403, body: FORBIDDEN });
    const res = await app.rest('POST', `/api/locations/locations/${id}/update_boundary/`, { token: adminToken });
    expect(res.status).toBe(200);
    // The exact boundary stays internal: centre = centroid, radius = bounded p90 ...
    const meanNorth = norths.reduce((s, n) => s + n, 0) / norths.length;
    const [exact] = await sql<{ lat: number; radius: number }>('SELECT ST_Y(member_centroid::geometry) AS lat, member_radius AS radius FROM locations WHERE id = $1', [id]);
    expect((exact.lat - spot.latitude) * 111_320).toBeCloseTo(meanNorth, -1);
    const ds = norths.map((n) => Math.abs(n - meanNorth)).sort((x, y) => x - y);
    const rank = 0.9 * (ds.length - 1);
    const p90 = ds[Math.floor(rank)] + (ds[Math.ceil(rank)] - ds[Math.floor(rank)]) * (rank - Math.floor(rank));
    expect(Math.abs(exact.radius - Math.min(2000, p90))).toBeLessThan(15);
    // ... and with 10 members the published one follows it: the centroid's grid cell, the radius in 100 m steps.
    expect(res.body.location).toMatchObject({ ...Object.fromEntries(Object.entries(snapToCell(exact.lat, spot.longitude)).map(([k, v]) => [`center_${k}`, v])), estimated_radius: Math.round(exact.radius / 100) * 100 });
    expect(res.body).toMatchObject({ message: 'Boundary updated', members_with_coordinates: 10, previous: { estimated_radius: 500 } });
    // Over the socket the same operation answers the same shape (boundary unchanged now).
    const again = await app.emit('locations.update_boundary', { location_id: id }, { token: adminToken });
    expect(again).toMatchObject({ status: 200, body: { message: 'Boundary unchanged', location: { estimated_radius: res.body.location.estimated_radius } } });
  });

  test('when a wider cluster of 10 members is spread over more than 2 km, then the radius is capped at 2000 m', async () => {
    const spot = aRemoteSpot();
    const city = unique('Vast ');
    // Ten members: below that a location publishes its initial 500 m whatever its members do.
    const norths = [0, 5000, -5000, 9000, -9000, 7000, -7000, 3000, -3000, 8000];
    let token = '';
    for (const north of norths) {
      const u = await aResident(app);
      await app.rest('POST', '/api/users/update-location/', { token: u.token, body: { city, ...offset(spot, north, 0) } });
      token = u.token;
    }
    const id = (await app.rest('GET', '/api/users/profile/', { token })).body.location.id;
    const res = await app.rest('POST', `/api/locations/locations/${id}/update_boundary/`, { token: adminToken });
    expect(res.body.location.estimated_radius).toBe(2000);
  });

  test('when an administrator patches a location, then the flags change over both transports and a normal user gets 403', async () => {
    const a = await aLocation(app, { size: 1 });
    const path = `/api/admin/locations/${a.id}/`;
    const rest = await app.rest('PATCH', path, { token: adminToken, body: { moderator_approved: true, needs_verification: false } });
    expect(rest).toMatchObject({ status: 200, body: { id: a.id, moderator_approved: true, needs_verification: false } });
    const socket = await app.emit('admin.locations_update', { location_id: a.id, moderator_approved: true, needs_verification: false }, { token: adminToken });
    // updated_at is the time of each call.
    expect({ ...socket, body: { ...socket.body, updated_at: 'T' } }).toEqual({ status: 200, body: { ...rest.body, updated_at: 'T' } });
    expect(await app.rest('PATCH', path, { token: a.residents[0].token, body: { moderator_approved: true } })).toMatchObject({ status: 403, body: FORBIDDEN });
  });
});
