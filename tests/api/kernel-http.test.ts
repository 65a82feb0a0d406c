import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';

/** The HTTP conventions every route shares: body parsing, media types, path forms, headers, CORS. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

describe('request bodies', () => {
  test('when a JSON body is larger than the limit, then 413 with a detail', async () => {
    const huge = { username: 'x'.repeat(1_100_000), password: 'p' };
    const res = await app.http().post('/api/auth/login/').send(huge);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body is too large.' });
  });

  test('when a body comes as text/plain, then 415 naming the media type', async () => {
    const res = await app.http().post('/api/auth/login/').set('Content-Type', 'text/plain').send('username=a&password=b');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ detail: 'Unsupported media type "text/plain" in request.' });
  });

  test('when a JSON body is malformed, then 400 with a detail saying so', async () => {
    const res = await app.http().post('/api/auth/login/').set('Content-Type', 'application/json').send('{"username": "a", ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.stringMatching(/^JSON parse error - /) });
  });

  test('when a GET carries no body and no content type, then it is served normally', async () => {
    const res = await app.http().get('/health');
    expect(res.status).toBe(200);
  });
});

describe('uploads', () => {
  test('when a profile picture larger than 10 MB is uploaded at registration, then 413 field error and no account', async () => {
    const username = unique('big');
    const tooBig = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(10 * 1024 * 1024 + 1)]);
    const res = await app
      .http()
      .post('/api/auth/register/')
      .field('email', `${username}@example.test`)
      .field('username', username)
      .field('display_name', 'Big Picture')
      .field('password', 'correct-horse-battery')
      .attach('profile_picture', tooBig, 'big.jpg');
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ profile_picture: ['The file is too large.'] });
    const lookup = await app.rest('GET', `/api/users/${username}`);
    expect(lookup.status).toBe(404);
  });

  test('when a file arrives under a field the operation does not take, then 400 field error on that field', async () => {
    const username = unique('odd');
    const res = await app
      .http()
      .post('/api/auth/register/')
      .field('email', `${username}@example.test`)
      .field('username', username)
      .field('display_name', 'Odd Field')
      .field('password', 'correct-horse-battery')
      .attach('cover', Buffer.from('GIF89a'), 'x.gif');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ cover: ['Unexpected file: this field takes no file, or fewer files.'] });
  });
});

describe('paths', () => {
  test('when a path is called without its trailing slash, then it is served the same', async () => {
    const alice = await aUser(app);
    const withSlash = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    const without = await app.rest('GET', '/api/users/profile', { token: alice.token });
    expect(withSlash.status).toBe(200);
    expect(without).toMatchObject({ status: 200, body: withSlash.body });
  });

  test('when the one slash-less path of the contract is called with a slash, then it is served the same', async () => {
    const bob = await aUser(app);
    const contractForm = await app.rest('GET', `/api/users/${bob.username}`);
    const withSlash = await app.rest('GET', `/api/users/${bob.username}/`);
    expect(contractForm.status).toBe(200);
    expect(contractForm.body.username).toBe(bob.username);
    expect(withSlash).toMatchObject({ status: 200, body: contractForm.body });
  });

  test('when a path parameter is a malformed UUID, then 400 "Invalid UUID format." on both transports', async () => {
    const carol = await aUser(app);
    const rest = await app.rest('PATCH', '/api/notifications/not-a-uuid/', { token: carol.token, body: { is_read: true } });
    expect(rest).toMatchObject({ status: 400, body: { notification_id: ['Invalid UUID format.'] } });
    const socket = await app.emit('notifications.update', { notification_id: 'not-a-uuid', is_read: true }, { token: carol.token });
    expect(socket).toEqual({ status: rest.status, body: rest.body });
  });
});

describe('service endpoints and headers', () => {
  test('when /health is called, then {status: ok}', async () => {
    const res = await app.rest('GET', '/health');
    expect(res).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  test('when a request carries X-Request-Id, then the response echoes it; otherwise one is issued', async () => {
    const id = `req-${unique()}`;
    const echoed = await app.http().get('/health').set('X-Request-Id', id);
    expect(echoed.headers['x-request-id']).toBe(id);
    const issued = await app.http().get('/health');
    expect(issued.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('when X-Request-Id is not an id (too long, odd characters), then a fresh one is issued instead', async () => {
    for (const odd of ['x'.repeat(500), 'id with spaces', '<script>']) {
      const res = await app.http().get('/health').set('X-Request-Id', odd);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  test('when a browser sends a CORS preflight, then 204 allowing the methods and the Authorization header', async () => {
    const res = await app
      .http()
      .options('/api/users/profile/')
      .set('Origin', 'https://app.example.test')
      .set('Access-Control-Request-Method', 'PATCH')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain('PATCH');
    expect(res.headers['access-control-allow-headers']).toMatch(/Authorization/i);
    expect(res.headers['access-control-allow-headers']).toMatch(/Content-Type/i);
  });

  test('when a cross-origin call is answered, then Retry-After and X-Request-Id are readable by the page', async () => {
    const res = await app.http().get('/health').set('Origin', 'https://app.example.test');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-expose-headers']).toMatch(/Retry-After/);
    expect(res.headers['access-control-expose-headers']).toMatch(/X-Request-Id/);
  });
});
