import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';

/**
 * Bad input found in review: every answer is a 4xx in the contract's formats, never a 500, on both transports.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

describe('text containing a NUL character (PostgreSQL text cannot store it)', () => {
  const NUL = 'a\u0000b';

  test('when a NUL is sent in a text field of any operation, then the answer is 400 on REST and on the socket, identical', async () => {
    const alice = await aUser(app);
    const name = unique('nul');
    const calls: Array<[string, string, string, Record<string, unknown>]> = [
      ['accounts.register', 'POST', '/api/auth/register/', { email: `${name}@example.test`, username: name, display_name: NUL, password: 'correct-horse-battery' }],
      ['accounts.login', 'POST', '/api/auth/login/', { username: NUL, password: 'whatever' }],
      ['users.profile_patch', 'PATCH', '/api/users/profile/', { bio: NUL }],
      ['users.update_location', 'POST', '/api/users/update-location/', { city: NUL }],
    ];
    for (const [event, method, path, body] of calls) {
      const rest = await app.rest(method, path, { token: alice.token, body });
      const socket = await app.emit(event, body, { token: alice.token });
      expect({ event, status: rest.status }).toEqual({ event, status: 400 });
      expect(socket).toEqual({ status: 400, body: rest.body });
    }
    const search = await app.rest('GET', '/api/users/search/', { token: alice.token, query: { query: NUL } });
    expect(search.status).toBe(400);
    expect(await app.emit('users.search', { query: NUL }, { token: alice.token })).toEqual({ status: 400, body: search.body });
  });

  test('when a NUL is sent in a profile update, then nothing of that update is written', async () => {
    const alice = await aUser(app);
    const res = await app.rest('PATCH', '/api/users/profile/', { token: alice.token, body: { display_name: 'Changed', bio: NUL } });
    expect(res.status).toBe(400);
    const profile = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(profile.body.display_name).toBe(alice.body.display_name);
  });
});

describe('address levels made only of spaces', () => {
  test('when update-location gets only blank levels, then it is 400 and the user keeps no nameless location (REST and socket)', async () => {
    const alice = await aUser(app);
    const body = { city: '   ', country: ' ' };
    const rest = await app.rest('POST', '/api/users/update-location/', { token: alice.token, body });
    expect(rest).toMatchObject({ status: 400, body: { non_field_errors: [expect.any(String)] } });
    expect(await app.emit('users.update_location', body, { token: alice.token })).toEqual({ status: 400, body: rest.body });
    expect((await app.rest('GET', '/api/users/profile/', { token: alice.token })).body.location).toBeNull();
  });

  test('when a profile update sends a location of blank levels, then it is 400 and the location is unchanged', async () => {
    const alice = await aUser(app);
    const body = { location: { city: '  ', state: '\t' } };
    const rest = await app.rest('PATCH', '/api/users/profile/', { token: alice.token, body });
    expect(rest).toMatchObject({ status: 400, body: { 'location.non_field_errors': [expect.any(String)] } });
    expect(await app.emit('users.profile_patch', body, { token: alice.token })).toEqual({ status: 400, body: rest.body });
    expect((await app.rest('GET', '/api/users/profile/', { token: alice.token })).body.location).toBeNull();
  });
});

describe('a file-like object sent over the socket', () => {
  const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

  test('when its file name is not a string, then the answer is a 400 field error, not a 500', async () => {
    const alice = await aUser(app);
    for (const fake of [{ buffer: PNG, size: 10 }, { buffer: PNG, originalname: { a: 1 }, size: 10 }]) {
      expect(await app.emit('users.profile_patch', { banner: fake }, { token: alice.token })).toEqual({ status: 400, body: { banner: ['The submitted data was not a file.'] } });
    }
  });
});
