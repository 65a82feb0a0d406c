import { eq } from 'drizzle-orm';
import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { JPEG_1X1, NOT_AN_IMAGE, PNG_1X1, imageShape } from '../helpers/images.js';
import { platform } from '../../src/platform/index.js';
import { locations } from '../../src/models/index.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const USER_FIELDS = [
  'id', 'email', 'username', 'display_name', 'is_verified', 'bio', 'profile_picture', 'website',
  'relationship_status', 'banner', 'location', 'store', 'owned_communities', 'created_at', 'updated_at', 'discoverable',
].sort();

/** Fetch an absolute media URL from the app itself and return its bytes. */
async function download(url: string): Promise<{ status: number; bytes: Buffer }> {
  const { pathname } = new URL(url);
  const res = await app.http().get(pathname).buffer(true).parse((r, cb) => {
    const chunks: Buffer[] = [];
    r.on('data', (c: Buffer) => chunks.push(c));
    r.on('end', () => cb(null, Buffer.concat(chunks)));
  });
  return { status: res.status, bytes: res.body as Buffer };
}

describe('GET /api/users/profile/', () => {
  test('when no token is sent, then 401 with the not-authenticated detail', async () => {
    const res = await app.rest('GET', '/api/users/profile/');
    expect(res).toMatchObject({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
  });

  test('when a user asks for its profile, then it gets exactly the contract fields of the user object', async () => {
    const alice = await aUser(app);
    const res = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(USER_FIELDS);
    expect(res.body).toMatchObject({ id: alice.id, username: alice.username, email: alice.email, is_verified: false, location: null, store: null, owned_communities: [] });
  });
});

describe('profile update (PUT /api/users/profile/update/ and PATCH /api/users/profile/)', () => {
  test('when JSON fields are sent with PUT, then only those change and is_verified in the body is ignored', async () => {
    const alice = await aUser(app);
    const res = await app.rest('PUT', '/api/users/profile/update/', {
      token: alice.token,
      body: { display_name: 'Alice Cooper', bio: 'Gardening and bikes', website: 'https://alice.example.com/', relationship_status: 'swiping', is_verified: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ display_name: 'Alice Cooper', bio: 'Gardening and bikes', website: 'https://alice.example.com/', relationship_status: 'swiping', is_verified: false });
    const patched = await app.rest('PATCH', '/api/users/profile/', { token: alice.token, body: { bio: 'Only bikes now', is_verified: 'true' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ display_name: 'Alice Cooper', bio: 'Only bikes now', relationship_status: 'swiping', is_verified: false });
    const again = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(again.body).toMatchObject({ bio: 'Only bikes now', is_verified: false });
  });

  test('when relationship_status is not one of the enum values, then 400 on that field and nothing changes', async () => {
    const alice = await aUser(app);
    const res = await app.rest('PATCH', '/api/users/profile/', { token: alice.token, body: { relationship_status: 'complicated', bio: 'should not be saved' } });
    expect(res.status).toBe(400);
    expect(res.body.relationship_status).toEqual([expect.any(String)]);
    const profile = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(profile.body.bio).toBe('');
    expect(profile.body.relationship_status).toBeNull();
  });

  test('when website is not an http(s) URL, then 400 {website: [Enter a valid URL.]}', async () => {
    const alice = await aUser(app);
    for (const website of ['not a url', 'javascript:alert(1)', 'data:text/html,hi', 'ftp//missing-colon', 42]) {
      const res = await app.rest('PATCH', '/api/users/profile/', { token: alice.token, body: { website } });
      expect({ website, ...res }).toMatchObject({ website, status: 400, body: { website: ['Enter a valid URL.'] } });
    }
    const fine = await app.rest('PATCH', '/api/users/profile/', { token: alice.token, body: { website: 'http://bakery.example.com/menu?day=1' } });
    expect(fine).toMatchObject({ status: 200, body: { website: 'http://bakery.example.com/menu?day=1' } });
  });

  test('when a PNG profile picture and a JPEG banner are sent as multipart, then both are absolute URLs under their folders that serve the uploaded bytes', async () => {
    const alice = await aUser(app);
    const res = await app
      .http()
      .patch('/api/users/profile/')
      .set('Authorization', `Bearer ${alice.token}`)
      .field('display_name', 'Alice With Pictures')
      .field('is_verified', 'true')
      .attach('profile_picture', PNG_1X1, { filename: 'me.png', contentType: 'image/png' })
      .attach('banner', JPEG_1X1, { filename: 'banner.jpg', contentType: 'image/jpeg' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ display_name: 'Alice With Pictures', is_verified: false });
    expect(res.body.profile_picture).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.*profile_pictures\/.+\.png$/);
    expect(res.body.banner).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/.*users\/banners\/.+\.jpg$/);
    const picture = await download(res.body.profile_picture);
    expect(picture.status).toBe(200);
    expect(await imageShape(picture.bytes)).toEqual(await imageShape(PNG_1X1));
    const banner = await download(res.body.banner);
    expect(banner.status).toBe(200);
    expect(await imageShape(banner.bytes)).toEqual(await imageShape(JPEG_1X1));
  });

  test('when a profile picture is replaced through PUT, then the new file is served and the old one is gone', async () => {
    const alice = await aUser(app);
    const first = await app.http().put('/api/users/profile/update/').set('Authorization', `Bearer ${alice.token}`).attach('profile_picture', PNG_1X1, 'one.png');
    expect(first.status).toBe(200);
    const second = await app.http().put('/api/users/profile/update/').set('Authorization', `Bearer ${alice.token}`).attach('profile_picture', JPEG_1X1, 'two.jpg');
    expect(second.status).toBe(200);
    expect(second.body.profile_picture).not.toBe(first.body.profile_picture);
    expect(await imageShape((await download(second.body.profile_picture)).bytes)).toEqual(await imageShape(JPEG_1X1));
    expect((await download(first.body.profile_picture)).status).toBe(404);
  });

  test('when a file that is not an image is uploaded as profile picture, then 400 on that field and the profile keeps no picture', async () => {
    const alice = await aUser(app);
    const res = await app
      .http()
      .patch('/api/users/profile/')
      .set('Authorization', `Bearer ${alice.token}`)
      .field('bio', 'with a fake picture')
      .attach('profile_picture', NOT_AN_IMAGE, { filename: 'cat.png', contentType: 'image/png' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ profile_picture: ['Upload a valid image. The file you uploaded was either not an image or a corrupted image.'] });
    const profile = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(profile.body).toMatchObject({ profile_picture: null, bio: '' });
  });

  test('when a location object is sent, then a location is created and assigned, and a second user with the same names gets the same location', async () => {
    const place = { country: `Country ${unique()}`, state: `State ${unique()}`, city: `City ${unique()}` };
    const alice = await aUser(app);
    const bob = await aUser(app);
    const a = await app.rest('PUT', '/api/users/profile/update/', { token: alice.token, body: { location: { ...place, latitude: -54.2811, longitude: -36.5092 } } });
    expect(a.status).toBe(200);
    expect(a.body.location).toEqual({ id: expect.any(String), name: place.city });
    const b = await app.rest('PATCH', '/api/users/profile/', { token: bob.token, body: { location: { country: place.country.toUpperCase(), state: place.state, city: place.city } } });
    expect(b.status).toBe(200);
    expect(b.body.location).toEqual(a.body.location);
    const [row] = await platform.db.select({ totalUsers: locations.totalUsers }).from(locations).where(eq(locations.id, a.body.location.id));
    expect(row.totalUsers).toBe(2);
    // Sending the same location again does not count the user twice.
    await app.rest('PATCH', '/api/users/profile/', { token: bob.token, body: { location: place } });
    const [after] = await platform.db.select({ totalUsers: locations.totalUsers }).from(locations).where(eq(locations.id, a.body.location.id));
    expect(after.totalUsers).toBe(2);
  });

  test('when a location object arrives in a multipart form as JSON text, then it is assigned like the JSON body form', async () => {
    const alice = await aUser(app);
    const place = { country: `Country ${unique()}`, city: `Town ${unique()}` };
    const res = await app.http().patch('/api/users/profile/').set('Authorization', `Bearer ${alice.token}`).field('location', JSON.stringify(place));
    expect(res.status).toBe(200);
    expect(res.body.location).toEqual({ id: expect.any(String), name: place.city });
  });

  test('when a location object carries coordinates, then latitude and longitude appear in no user response', async () => {
    const alice = await aUser(app);
    const res = await app.rest('PATCH', '/api/users/profile/', { token: alice.token, body: { location: { country: `C ${unique()}`, city: `X ${unique()}`, latitude: 12.34567891, longitude: 45.6789 } } });
    expect(res.status).toBe(200);
    const responses = [
      res.body,
      (await app.rest('GET', '/api/users/profile/', { token: alice.token })).body,
      (await app.rest('GET', `/api/users/${alice.username}`)).body,
    ];
    for (const body of responses) {
      expect(body).not.toHaveProperty('latitude');
      expect(body).not.toHaveProperty('longitude');
      expect(JSON.stringify(body)).not.toMatch(/12\.3456|45\.6789/);
    }
  });

  test('when a location object has an invalid coordinate, then 400 names the coordinate field', async () => {
    const alice = await aUser(app);
    const res = await app.rest('PATCH', '/api/users/profile/', { token: alice.token, body: { location: { country: 'Nowhere', latitude: 123, longitude: 10 } } });
    expect(res).toMatchObject({ status: 400, body: { 'location.latitude': ['Invalid coordinate value.'] } });
  });
});

describe('GET /api/users/{username}', () => {
  test('when asked without a token, with or without the trailing slash, then the public user object (without email) is returned', async () => {
    const alice = await aUser(app);
    const bare = await app.rest('GET', `/api/users/${alice.username}`);
    expect(bare.status).toBe(200);
    expect(Object.keys(bare.body).sort()).toEqual(USER_FIELDS.filter((f) => f !== 'email' && f !== 'discoverable'));
    expect(bare.body).toMatchObject({ id: alice.id, username: alice.username });
    const slash = await app.rest('GET', `/api/users/${alice.username}/`);
    expect(slash).toMatchObject({ status: 200, body: bare.body });
  });

  test('when the username is unknown, then 404 {detail: Not found.}', async () => {
    const res = await app.rest('GET', `/api/users/${unique('nobody')}`);
    expect(res).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
  });
});

describe('the users operations over both transports', () => {
  const withoutUpdatedAt = ({ updated_at: _ignored, ...rest }: Record<string, unknown>) => rest;

  test('when users.profile and users.get run over REST and the socket, then status and body are identical', async () => {
    const alice = await aUser(app);
    const pairs = [
      [await app.rest('GET', '/api/users/profile/', { token: alice.token }), await app.emit('users.profile', {}, { token: alice.token })],
      [await app.rest('GET', '/api/users/profile/'), await app.emit('users.profile', {})],
      [await app.rest('GET', `/api/users/${alice.username}`), await app.emit('users.get', { username: alice.username })],
      [await app.rest('GET', `/api/users/${unique('nobody')}`), await app.emit('users.get', { username: 'nobody-at-all-here' })],
    ];
    for (const [rest, socket] of pairs) expect(socket).toEqual({ status: rest.status, body: rest.body });
  });

  test.each([
    ['users.profile_update', 'PUT', '/api/users/profile/update/'],
    ['users.profile_patch', 'PATCH', '/api/users/profile/'],
  ])('when %s runs over REST and the socket, then status and body are identical (apart from updated_at)', async (event, method, path) => {
    const alice = await aUser(app);
    const input = { display_name: 'Same Both Ways', bio: 'bio', website: 'https://example.org', relationship_status: 'taken', location: { country: `C ${unique()}`, city: `X ${unique()}` } };
    const rest = await app.rest(method, path, { token: alice.token, body: input });
    const socket = await app.emit(event, input, { token: alice.token });
    expect(rest.status).toBe(200);
    expect(socket.status).toBe(rest.status);
    expect(withoutUpdatedAt(socket.body)).toEqual(withoutUpdatedAt(rest.body));
    const badRest = await app.rest(method, path, { token: alice.token, body: { website: 'nope', relationship_status: 'bored' } });
    const badSocket = await app.emit(event, { website: 'nope', relationship_status: 'bored' }, { token: alice.token });
    expect(badRest.status).toBe(400);
    expect(badSocket).toEqual({ status: badRest.status, body: badRest.body });
  });
});
