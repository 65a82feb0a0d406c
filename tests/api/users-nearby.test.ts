import { eq } from 'drizzle-orm';
import { aQuietSpot } from '../helpers/quiet-spot.js';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser, type TestUser } from '../builders/users.js';
import { platform } from '../../src/platform/index.js';
import { users } from '../../src/models/index.js';
import { pointEwkt } from '../../src/models/geography.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

let origin: { latitude: number; longitude: number };
const place = { country: `Ocean ${unique()}`, city: `Raft ${unique()}` };

async function userAt(latOffsetDegrees: number): Promise<TestUser> {
  const user = await aUser(app);
  const latitude = (origin.latitude + latOffsetDegrees).toFixed(6);
  const res = await app.rest('POST', '/api/users/update-location/', { token: user.token, body: { ...place, latitude, longitude: origin.longitude.toFixed(6) } });
  if (res.status !== 200) throw new Error(`update-location answered ${res.status}`);
  return user;
}

// One degree of latitude is about 111 km: offsets up to 0.85 are within 100 km, 1.0 is beyond.
const NEAR_OFFSETS = [0.85, 0.01, 0.6, 0.05, 0.4, 0.1, 0.7, 0.2, 0.3, 0.5, 0.15, 0.8];
let caller: TestUser;
let nearestFirst: TestUser[];
let far: TestUser;

beforeAll(async () => {
  origin = await aQuietSpot();
  caller = await userAt(0);
  const near: Array<{ user: TestUser; offset: number }> = [];
  for (const offset of NEAR_OFFSETS) near.push({ user: await userAt(offset), offset });
  nearestFirst = near.sort((a, b) => a.offset - b.offset).map((n) => n.user);
  far = await userAt(1.0);
  await aCrowd(CROWD_SIZE, 0.88, caller);
});

/**
 * More users than the largest page, placed at the edge of the radius (about 98 km), straight in the
 * database: registering 45 accounts through the API would hit the registration rate limit.
 */
const CROWD_SIZE = 45;
async function aCrowd(size: number, latOffsetDegrees: number, sameLocationAs: TestUser) {
  const [{ locationId }] = await platform.db.select({ locationId: users.locationId }).from(users).where(eq(users.id, sameLocationAs.id));
  const latitude = origin.latitude + latOffsetDegrees;
  await platform.db.insert(users).values(
    Array.from({ length: size }, () => {
      const username = unique('crowd');
      return {
        email: `${username}@example.test`,
        username,
        displayName: username,
        passwordHash: 'not-a-login',
        referralCode: username.toUpperCase(),
        locationId,
        latitude: latitude.toFixed(8),
        longitude: origin.longitude.toFixed(8),
        point: pointEwkt(origin.longitude, latitude),
      };
    }),
  );
}

describe('GET /api/users/nearby-users/', () => {
  test('when the caller has no location, then 400', async () => {
    const loner = await aUser(app);
    const res = await app.rest('GET', '/api/users/nearby-users/', { token: loner.token });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: expect.any(String) });
  });

  test('when the caller has a location, then users within 100 km come nearest first, the caller and users beyond are left out', async () => {
    const res = await app.rest('GET', '/api/users/nearby-users/', { token: caller.token, query: { page_size: 50 } });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(NEAR_OFFSETS.length + CROWD_SIZE);
    const ids: string[] = res.body.results.map((u: { id: string }) => u.id);
    expect(ids.slice(0, NEAR_OFFSETS.length)).toEqual(nearestFirst.map((u) => u.id));
    const everyone = [...ids, ...(await app.rest('GET', '/api/users/nearby-users/', { token: caller.token, query: { page_size: 50, page: 2 } })).body.results.map((u: { id: string }) => u.id)];
    expect(new Set(everyone).size).toBe(NEAR_OFFSETS.length + CROWD_SIZE);
    expect(everyone).not.toContain(far.id);
    expect(everyone).not.toContain(caller.id);
    for (const user of res.body.results) {
      expect(user).toMatchObject({ location: { id: expect.any(String), name: place.city }, store: null, owned_communities: [] });
      expect(user).not.toHaveProperty('latitude');
      expect(user).not.toHaveProperty('longitude');
    }
  });

  test('when no page_size is given, then pages hold 10 users and next/previous are absolute links', async () => {
    const first = await app.rest('GET', '/api/users/nearby-users/', { token: caller.token });
    expect(first.status).toBe(200);
    expect(first.body.results.map((u: { id: string }) => u.id)).toEqual(nearestFirst.slice(0, 10).map((u) => u.id));
    expect(first.body.previous).toBeNull();
    const next = new URL(first.body.next);
    expect(`${next.origin}${next.pathname}`).toBe(`${app.url}/api/users/nearby-users/`);
    expect(Object.fromEntries(next.searchParams)).toEqual({ page: '2', page_size: '10' });

    const second = await app.rest('GET', next.pathname, { token: caller.token, query: Object.fromEntries(next.searchParams) });
    expect(second.status).toBe(200);
    expect(second.body.results).toHaveLength(10);
    expect(second.body.results.slice(0, 2).map((u: { id: string }) => u.id)).toEqual(nearestFirst.slice(10).map((u) => u.id));
    expect(Object.fromEntries(new URL(second.body.previous).searchParams)).toEqual({ page: '1', page_size: '10' });
  });

  test('when page_size is above 50, then it is clamped to 50', async () => {
    const res = await app.rest('GET', '/api/users/nearby-users/', { token: caller.token, query: { page_size: 500 } });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(50);
    expect(Object.fromEntries(new URL(res.body.next).searchParams)).toEqual({ page: '2', page_size: '50' });
    const rest = await app.rest('GET', '/api/users/nearby-users/', { token: caller.token, query: { page_size: 500, page: 2 } });
    expect(rest.body.results).toHaveLength(NEAR_OFFSETS.length + CROWD_SIZE - 50);
  });

  test('when the page is past the end, then 404 {detail: Invalid page.}', async () => {
    const res = await app.rest('GET', '/api/users/nearby-users/', { token: caller.token, query: { page: 7 } });
    expect(res).toMatchObject({ status: 404, body: { detail: 'Invalid page.' } });
    const socket = await app.emit('users.nearby', { page: 7 }, { token: caller.token });
    expect(socket).toEqual({ status: 404, body: { detail: 'Invalid page.' } });
  });

  test('when the same page is asked over REST and the socket, then status and body are identical', async () => {
    const rest = await app.rest('GET', '/api/users/nearby-users/', { token: caller.token, query: { page: 2, page_size: 4 } });
    const socket = await app.emit('users.nearby', { page: 2, page_size: 4 }, { token: caller.token });
    expect(rest.status).toBe(200);
    expect(rest.body.previous).toMatch(/^http:\/\//);
    expect(socket).toEqual({ status: rest.status, body: rest.body });
  });
});

describe('GET /api/users/nearby-users/ for users who never sent coordinates', () => {
  test("when a user joined a place by address only, then it is measured from that place's centre", async () => {
    const spot = await aQuietSpot();
    const at = (dLat: number) => ({ latitude: (spot.latitude + dLat).toFixed(6), longitude: spot.longitude.toFixed(6) });
    const nearPlace = { country: `Isle ${unique()}`, city: `Cove ${unique()}` };
    const farPlace = { country: `Isle ${unique()}`, city: `Reef ${unique()}` };
    const move = async (user: TestUser, body: Record<string, string>) => {
      const res = await app.rest('POST', '/api/users/update-location/', { token: user.token, body });
      if (res.status !== 200) throw new Error(`update-location answered ${res.status}`);
    };
    const [me, founder, addressOnly, farFounder, farAddressOnly] = [await aUser(app), await aUser(app), await aUser(app), await aUser(app), await aUser(app)];
    await move(me, { country: `Isle ${unique()}`, city: `Home ${unique()}`, ...at(0.3) });
    await move(founder, { ...nearPlace, ...at(0) }); // gives the near place its centre
    await move(addressOnly, nearPlace); // no coordinates: stands at the near place's centre, about 33 km away
    await move(farFounder, { ...farPlace, ...at(1.5) });
    await move(farAddressOnly, farPlace); // stands at the far place's centre, about 133 km away

    const res = await app.rest('GET', '/api/users/nearby-users/', { token: me.token, query: { page_size: 50 } });
    expect(res.status).toBe(200);
    const ids = res.body.results.map((u: { id: string }) => u.id);
    expect(ids).toEqual(expect.arrayContaining([founder.id, addressOnly.id]));
    expect(ids).not.toContain(farAddressOnly.id);
    expect(ids).not.toContain(farFounder.id);
    expect(res.body.count).toBe(2);
  });
});
