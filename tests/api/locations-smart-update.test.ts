import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aLocation, aRemoteSpot, aResident, moveTo, offset } from '../builders/locations.js';
import { snapToCell } from '../../src/modules/locations/public-grid.js';
import { sql } from '../helpers/sql.js';

const publishedCentre = (spot: { latitude: number; longitude: number }) => {
  const cell = snapToCell(spot.latitude, spot.longitude);
  return { center_latitude: cell.latitude, center_longitude: cell.longitude };
};

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const PATH = '/api/locations/locations/smart_update/';
const address = (city: string) => ({ geocoded_data: { address: { country: 'Testland', state: 'Far South', city, neighbourhood: `${city} Quay` } } });

describe('smart_update', () => {
  test('when several users arrive at nearby coordinates, then they converge on one location; its exact boundary follows them internally while the published one stays on its grid cell', async () => {
    const spot = aRemoteSpot();
    const first = await aResident(app);
    const created = await moveTo(app, first, spot, address('Tidewater'));
    expect(created).toMatchObject({
      source: 'new',
      needs_more_data: false,
      location: { name: 'Tidewater Quay', estimated_radius: 500, total_users: 1, is_auto_generated: false, ...publishedCentre(spot) },
    });
    const id = created.location.id;
    // Four more within 150 m: each joins the same location; from the second member on the boundary is redrawn.
    const offsets = [[100, 0], [0, 100], [-100, 0], [0, -100]];
    let last: any;
    for (const [n, e] of offsets) {
      last = await moveTo(app, await aResident(app), offset(spot, n, e));
      expect(last).toMatchObject({ source: 'existing', location: { id, name: 'Tidewater Quay' } });
    }
    expect(last.location.total_users).toBe(5);
    // Internally, centre = centroid of the five points (the spot itself, symmetric offsets); radius = p90 of ~0,100,100,100,100 m → bounded to 200.
    const [exact] = await sql<{ lat: number; lon: number; radius: number }>('SELECT ST_Y(member_centroid::geometry) AS lat, ST_X(member_centroid::geometry) AS lon, member_radius AS radius FROM locations WHERE id = $1', [id]);
    expect(exact.lat).toBeCloseTo(spot.latitude, 5);
    expect(exact.lon).toBeCloseTo(spot.longitude, 5);
    expect(exact.radius).toBe(200);
    // Published: five members are fewer than ten, so the cell the location began in and the initial 500 m.
    expect(last.location).toMatchObject({ ...publishedCentre(spot), estimated_radius: 500 });
    expect(last.location).toEqual(expect.objectContaining({ country: 'Testland', state: 'Far South', city: 'Tidewater', neighbourhood: 'Tidewater Quay' }));
  });

  test('when a user is outside every boundary, then a new location is created; without geocoded data it is auto-generated and asks for more', async () => {
    const user = await aResident(app);
    const spot = aRemoteSpot();
    const res = await app.rest('POST', PATH, { token: user.token, body: spot });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      location: {
        id: expect.any(String),
        name: `Area ${spot.latitude.toFixed(3)}, ${spot.longitude.toFixed(3)}`,
        confidence_score: expect.any(Number),
        estimated_radius: 500,
        ...publishedCentre(spot),
        total_users: 1,
        is_auto_generated: true,
      },
      source: 'new',
      message: expect.any(String),
      needs_more_data: true,
    });
    const profile = await app.rest('GET', '/api/users/profile/', { token: user.token });
    expect(profile.body.location).toEqual({ id: res.body.location.id, name: res.body.location.name });
  });

  test('when a user moves from one location to another, then both total_users stay exact', async () => {
    const a = await aLocation(app, { size: 2 });
    const b = await aLocation(app, { size: 1 });
    await moveTo(app, a.residents[0], b.spot);
    const [da, db] = await Promise.all([a.id, b.id].map((id) => app.rest('GET', `/api/locations/locations/${id}/`, { token: a.residents[1].token })));
    expect(da.body.total_users).toBe(1);
    expect(db.body.total_users).toBe(2);
    // Calling again from the same place changes nothing.
    const again = await moveTo(app, a.residents[0], b.spot);
    expect(again.location.total_users).toBe(2);
  });

  test('when users cross between two locations at the same moment, then every move succeeds and both total_users stay exact', async () => {
    // The embedded database has one connection, so this only races on a real server (TEST_DATABASE_URL).
    const a = await aLocation(app, { size: 1 });
    const b = await aLocation(app, { size: 1 });
    const inA = [a.residents[0]];
    const inB = [b.residents[0]];
    for (let i = 1; i < 6; i++) {
      inA.push(await aResident(app));
      await moveTo(app, inA[i], offset(a.spot, i, 0));
      inB.push(await aResident(app));
      await moveTo(app, inB[i], offset(b.spot, i, 0));
    }
    for (let round = 0; round < 4; round++) {
      const [goToB, goToA] = round % 2 === 0 ? [inA, inB] : [inB, inA];
      const moves = [
        ...goToB.map((u, i) => app.rest('POST', PATH, { token: u.token, body: offset(b.spot, i + 1, 0) })),
        ...goToA.map((u, i) => app.rest('POST', PATH, { token: u.token, body: offset(a.spot, i + 1, 0) })),
      ];
      expect((await Promise.all(moves)).map((r) => r.status)).toEqual(moves.map(() => 200));
    }
    const [da, db] = await Promise.all([a.id, b.id].map((id) => app.rest('GET', `/api/locations/locations/${id}/`, { token: inA[0].token })));
    expect([da.body.total_users, db.body.total_users]).toEqual([6, 6]);
  });

  test('when a user sends smart_update and suggest_name for the same place at the same moment (two devices), then both succeed', async () => {
    // The embedded database has one connection, so this only races on a real server (TEST_DATABASE_URL).
    const statuses: number[] = [];
    for (let round = 0; round < 3; round++) {
      const place = await aLocation(app, { size: 1 });
      const users = [await aResident(app), await aResident(app), await aResident(app), await aResident(app)];
      // Only people of the place may name it: these have a point by it (as a phone sends before joining),
      // so their suggestion is allowed whether it runs before or after their move.
      for (const [i, u] of users.entries()) {
        const { latitude, longitude } = offset(place.spot, i + 1, 0);
        await sql('UPDATE users SET point = ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography WHERE id = $3', [longitude, latitude, u.id]);
      }
      const answers = await Promise.all(
        users.flatMap((u, i) => [
          app.rest('POST', PATH, { token: u.token, body: offset(place.spot, i + 1, 0) }),
          app.rest('POST', `/api/locations/locations/${place.id}/suggest_name/`, { token: u.token, body: { name: 'Both Devices' } }),
        ]),
      );
      statuses.push(...answers.map((r) => r.status));
    }
    expect(statuses).toEqual(statuses.map(() => 200));
  });

  test('when the same call goes over REST and over the socket, then status and body are the same (new and existing outcomes)', async () => {
    const strip = (b: any) => ({ ...b, location: { ...b.location, id: 'ID', center_latitude: 0, center_longitude: 0 } });
    const [s1, s2] = [aRemoteSpot(), aRemoteSpot()];
    const rest = await app.rest('POST', PATH, { token: (await aResident(app)).token, body: { ...s1, ...address('Twin') } });
    const socket = await app.emit('locations.smart_update', { ...s2, ...address('Twin') }, { token: (await aResident(app)).token });
    expect(rest.status).toBe(201);
    expect(strip(socket.body)).toEqual(strip(rest.body));
    expect(socket.status).toBe(rest.status);
    const joinRest = await app.rest('POST', PATH, { token: (await aResident(app)).token, body: offset(s1, 50, 0) });
    const joinSocket = await app.emit('locations.smart_update', offset(s2, 50, 0), { token: (await aResident(app)).token });
    expect(joinRest).toMatchObject({ status: 200, body: { source: 'existing', location: { total_users: 2 } } });
    expect({ status: joinSocket.status, body: strip(joinSocket.body) }).toEqual({ status: joinRest.status, body: strip(joinRest.body) });
  });

  test('when a socket is connected and its user moves, then the socket follows into the new location room', async () => {
    const home = await aLocation(app, { size: 1 });
    const mover = await aResident(app);
    await moveTo(app, mover, aRemoteSpot());
    const socket = await app.socket(mover.token);
    // The location left may speak first (its confidence drops with its population), so wait for home's.
    const seen: string[] = [];
    const updatedHome = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no location:updated for home within 5000 ms (saw ${seen.join(', ')})`)), 5000);
      socket.on('location:updated', (payload: { id: string }) => {
        seen.push(payload.id);
        if (payload.id === home.id) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    await moveTo(app, mover, offset(home.spot, 20, 0));
    // The join redraws home's boundary (2 members): the room it now belongs to hears of it.
    await expect(updatedHome).resolves.toBeUndefined();
  });

  test('when coordinates are missing, then the smart_update error; out of range or not numeric, then the coordinate error', async () => {
    const user = await aResident(app);
    const missing = { status: 400, body: { error: 'Valid latitude and longitude are required' } };
    const invalid = { status: 400, body: { longitude: ['Invalid coordinate value.'], latitude: ['Invalid coordinate value.'] } };
    for (const [body, expected] of [
      [{}, missing],
      [{ latitude: 10 }, missing],
      [{ latitude: '', longitude: '' }, missing],
      [{ latitude: 91, longitude: 0 }, invalid],
      [{ latitude: 0, longitude: -180.5 }, invalid],
      [{ latitude: 'north', longitude: 3 }, invalid],
    ] as const) {
      const rest = await app.rest('POST', PATH, { token: user.token, body });
      const socket = await app.emit('locations.smart_update', body, { token: user.token });
      expect({ status: rest.status, body: rest.body }).toEqual(expected);
      expect(socket).toEqual(expected);
    }
  });

  test('when no token is sent, then 401', async () => {
    const res = await app.rest('POST', PATH, { body: aRemoteSpot() });
    expect(res.status).toBe(401);
  });
});
