import { eq } from 'drizzle-orm';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { platform } from '../../src/platform/index.js';
import { locations, users } from '../../src/models/index.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const totalUsers = async (locationId: string) =>
  (await platform.db.select({ n: locations.totalUsers }).from(locations).where(eq(locations.id, locationId)))[0].n;

describe('POST /api/users/update-location/', () => {
  test('when an address is sent, then {message, location{id, name}} names it after its most specific level and the profile shows it', async () => {
    const alice = await aUser(app);
    const address = { country: `Country ${unique()}`, state: `State ${unique()}`, city: `City ${unique()}`, neighbourhood: `Hood ${unique()}`, road: null, latitude: -47.123456789, longitude: 168.1 };
    const res = await app.rest('POST', '/api/users/update-location/', { token: alice.token, body: address });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), location: { id: expect.any(String), name: address.neighbourhood } });
    const profile = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(profile.body.location).toEqual(res.body.location);
    expect(profile.body).not.toHaveProperty('latitude');
    // Stored to 8 decimal places (the contract's precision), never shown.
    const [row] = await platform.db.select({ latitude: users.latitude, longitude: users.longitude }).from(users).where(eq(users.id, alice.id));
    expect(row).toEqual({ latitude: '-47.12345679', longitude: '168.10000000' });
  });

  test('when the user moves to another address, then the old location loses the user and the new one gains it', async () => {
    const alice = await aUser(app);
    const first = await app.rest('POST', '/api/users/update-location/', { token: alice.token, body: { country: `C ${unique()}`, city: `First ${unique()}` } });
    const firstId = first.body.location.id;
    expect(await totalUsers(firstId)).toBe(1);
    const second = await app.rest('POST', '/api/users/update-location/', { token: alice.token, body: { country: `C ${unique()}`, city: `Second ${unique()}` } });
    expect(second.status).toBe(200);
    expect(second.body.location.id).not.toBe(firstId);
    expect(await totalUsers(firstId)).toBe(0);
    expect(await totalUsers(second.body.location.id)).toBe(1);
  });

  test('when two users send the same address, then they share one location counted twice', async () => {
    const address = { country: `Country ${unique()}`, city: `City ${unique()}` };
    const alice = await aUser(app);
    const bob = await aUser(app);
    const a = await app.rest('POST', '/api/users/update-location/', { token: alice.token, body: address });
    const b = await app.rest('POST', '/api/users/update-location/', { token: bob.token, body: { ...address, city: address.city.toLowerCase() } });
    expect(b.body.location.id).toBe(a.body.location.id);
    expect(await totalUsers(a.body.location.id)).toBe(2);
  });

  test('when several users send the same new address at the same moment, then exactly one location is created and counts them all', async () => {
    const address = { country: `Country ${unique()}`, state: `State ${unique()}`, city: `City ${unique()}` };
    const crowd = [await aUser(app), await aUser(app), await aUser(app), await aUser(app)];
    const answers = await Promise.all(
      crowd.map((u, i) =>
        i % 2
          ? app.rest('POST', '/api/users/update-location/', { token: u.token, body: address })
          : app.rest('PATCH', '/api/users/profile/', { token: u.token, body: { location: address } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const ids = new Set(answers.map((a) => a.body.location.id));
    expect(ids.size).toBe(1);
    expect(await totalUsers([...ids][0])).toBe(4);
  });

  test.each([
    ['out of range', { latitude: 91, longitude: 181 }],
    ['not numbers', { latitude: 'north', longitude: 'east' }],
    ['only one of the pair', { latitude: 10 }],
  ])('when the coordinates are %s, then 400 {latitude: [Invalid coordinate value.], longitude: [Invalid coordinate value.]}', async (_label, coords) => {
    const alice = await aUser(app);
    const res = await app.rest('POST', '/api/users/update-location/', { token: alice.token, body: { country: 'Anywhere', city: 'Somewhere', ...coords } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ latitude: ['Invalid coordinate value.'], longitude: ['Invalid coordinate value.'] });
    expect((await app.rest('GET', '/api/users/profile/', { token: alice.token })).body.location).toBeNull();
  });

  test('when no token is sent, then 401', async () => {
    const res = await app.rest('POST', '/api/users/update-location/', { body: { country: 'X' } });
    expect(res).toMatchObject({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
  });

  test('when the same update runs over REST and the socket, then status and body are identical', async () => {
    const alice = await aUser(app);
    const address = { country: `Country ${unique()}`, city: `City ${unique()}`, latitude: '-48.5', longitude: '170.25' };
    const rest = await app.rest('POST', '/api/users/update-location/', { token: alice.token, body: address });
    const socket = await app.emit('users.update_location', address, { token: alice.token });
    expect(rest.status).toBe(200);
    expect(socket).toEqual({ status: rest.status, body: rest.body });
    const badRest = await app.rest('POST', '/api/users/update-location/', { token: alice.token, body: { country: 'X', latitude: 99, longitude: 0 } });
    const badSocket = await app.emit('users.update_location', { country: 'X', latitude: 99, longitude: 0 }, { token: alice.token });
    expect(badRest.status).toBe(400);
    expect(badSocket).toEqual({ status: badRest.status, body: badRest.body });
  });
});
