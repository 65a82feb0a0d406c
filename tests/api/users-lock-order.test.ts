import { eq, inArray } from 'drizzle-orm';
import { sql } from '../helpers/sql.js';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { platform } from '../../src/platform/index.js';
import { locations, users } from '../../src/models/index.js';

/**
 * Every path that moves a user between locations takes its locks in one order: the user row, then the
 * address or area lock, then the locations in id order (membership.service.ts). Two requests of one
 * user that take them in opposite orders deadlock, and PostgreSQL answers one of them with an error (500).
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const ROUNDS = 20;

/** total_users of each location against a count of its members. */
async function countsOf(ids: string[]) {
  const rows = await sql<{ id: string; total: number; members: number }>(
    'SELECT l.id, l.total_users AS total, (SELECT count(*)::int FROM users u WHERE u.location_id = l.id) AS members FROM locations l WHERE l.id = ANY($1)',
    [ids],
  );
  return Object.fromEntries(rows.map((r) => [r.id, { total: r.total, members: r.members }]));
}

describe('one lock order for location moves', () => {
  test('when a profile update with a location and update-location run at once for the same user, 20 times, then none fails and the counts stay exact', async () => {
    const alice = await aUser(app);
    const addresses = [
      { country: `Lockland ${unique()}`, city: `North ${unique()}` },
      { country: `Lockland ${unique()}`, city: `South ${unique()}` },
    ];
    const statuses: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Both requests name the same address (the case that deadlocked: the address lock and the user row
      // taken in opposite orders), alternating so each round is a real move; the profile also sends coordinates.
      const address = addresses[round % 2];
      const [profile, update] = await Promise.all([
        app.rest('PATCH', '/api/users/profile/', { token: alice.token, body: { display_name: `Round ${round}`, location: { ...address, latitude: -51.5 + round / 1000, longitude: -120.25 } } }),
        app.rest('POST', '/api/users/update-location/', { token: alice.token, body: address }),
      ]);
      statuses.push(profile.status, update.status);
    }
    expect(statuses).toEqual(Array(ROUNDS * 2).fill(200));
    const ids = (await platform.db.select({ id: locations.id }).from(locations).where(inArray(locations.city, addresses.map((a) => a.city)))).map((r) => r.id);
    expect(ids).toHaveLength(2);
    const counts = await countsOf(ids);
    for (const id of ids) expect(counts[id].total).toBe(counts[id].members);
    const [me] = await platform.db.select({ locationId: users.locationId }).from(users).where(eq(users.id, alice.id));
    expect(counts[me.locationId!]).toEqual({ total: 1, members: 1 });
  });

  test('when two users swap places at once, each sending the first coordinates of the place it joins, 20 times, then none fails and the counts stay exact', async () => {
    const [alice, bob] = [await aUser(app), await aUser(app)];
    const statuses: number[] = [];
    const cities: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Two new places without coordinates: alice lives in x, bob in y.
      const x = { country: 'Swapland', city: `X ${unique()}` };
      const y = { country: 'Swapland', city: `Y ${unique()}` };
      cities.push(x.city, y.city);
      await app.rest('POST', '/api/users/update-location/', { token: alice.token, body: x });
      await app.rest('POST', '/api/users/update-location/', { token: bob.token, body: y });
      // Each move also stores the joined place's first point: that write must not lock it before the place left.
      const results = await Promise.all([
        app.rest('POST', '/api/users/update-location/', { token: alice.token, body: { ...y, latitude: -52.5, longitude: -121.5 } }),
        app.rest('PATCH', '/api/users/profile/', { token: bob.token, body: { location: { ...x, latitude: -52.6, longitude: -121.6 } } }),
      ]);
      statuses.push(...results.map((r) => r.status));
    }
    expect(statuses).toEqual(Array(ROUNDS * 2).fill(200));
    const ids = (await platform.db.select({ id: locations.id }).from(locations).where(inArray(locations.city, cities))).map((r) => r.id);
    expect(ids).toHaveLength(ROUNDS * 2);
    const counts = await countsOf(ids);
    for (const id of ids) expect(counts[id].total).toBe(counts[id].members);
});
});
