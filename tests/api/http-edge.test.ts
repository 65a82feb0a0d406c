import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { anIp } from '../helpers/caller.js';
import { multipartBody, rawExchange, rawRequest } from '../helpers/raw-http.js';

/**
 * The HTTP edge under hostile input: bodies the parsers cannot read, requests Node refuses, and the
 * order of admission and body reading (a refused caller's body is never read).
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const registration = () => {
  const username = unique('edge');
  return { email: `${username}@example.test`, username, display_name: 'Edge', password: 'correct-horse-battery' };
};

describe('a multipart body that cannot be parsed', () => {
  const malformed = (fields: Record<string, string>) => {
    const { boundary, body } = multipartBody(fields);
    return {
      'no boundary': { type: 'multipart/form-data', body },
      'a wrong boundary': { type: 'multipart/form-data; boundary=not-the-one-used', body },
      'a truncated body': { type: `multipart/form-data; boundary=${boundary}`, body: body.subarray(0, body.length - 30) },
    };
  };

  test('when register, PUT profile/update and PATCH profile get one, then each is 400 with a detail, never a 500', async () => {
    const alice = await aUser(app);
    const routes: Array<[string, string, Record<string, string>, Record<string, string>]> = [
      ['POST', '/api/auth/register/', registration(), {}],
      ['PUT', '/api/users/profile/update/', { bio: 'hi' }, { Authorization: `Bearer ${alice.token}` }],
      ['PATCH', '/api/users/profile/', { bio: 'hi' }, { Authorization: `Bearer ${alice.token}` }],
    ];
    for (const [method, path, fields, auth] of routes) {
      for (const [kind, { type, body }] of Object.entries(malformed(fields))) {
        const res = await rawRequest(app.url, { method, path, headers: { ...auth, 'Content-Type': type, 'Content-Length': body.length, 'X-Forwarded-For': anIp() }, chunks: [body] });
        expect({ method, path, kind, status: res.status, body: res.body }).toEqual({ method, path, kind, status: 400, body: { detail: expect.stringMatching(/^Multipart form parse error - /) } });
      }
    }
    expect((await app.rest('GET', '/api/users/profile/', { token: alice.token })).body.bio).toBe(alice.body.bio);
  });
});

describe('requests Node refuses before any route', () => {
  test('when the URL is longer than the header limit, then 431 with a JSON detail', async () => {
    const res = await rawRequest(app.url, { method: 'GET', path: `/api/users/${'a'.repeat(20_000)}` });
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ detail: 'Request header fields too large.' });
  });

  test('when the request line is not HTTP, then 400 with a JSON detail', async () => {
    const answer = await rawExchange(app.url, 'HELLO THERE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.split('\r\n\r\n')[1]).toBe(JSON.stringify({ detail: 'Bad request.' }));
  });
});

describe('admission before the body', () => {
  const THIRTY_MB = 30 * 1024 * 1024;

  test('when an anonymous client starts a 30 MB upload to an operation that needs a user, then 401 arrives before the body is sent', async () => {
    const { boundary, body } = multipartBody({ bio: 'x' });
    const head = body.subarray(0, body.length - `--${boundary}--\r\n`.length);
    // Only the first 64 KiB are ever written: a server that read the body first would wait forever.
    const res = await rawRequest(app.url, {
      method: 'PATCH',
      path: '/api/users/profile/',
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': THIRTY_MB },
      chunks: [head, Buffer.alloc(64 * 1024, 'a')],
      end: false,
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(res.headers.connection).toBe('close');
    expect(res.bytesSentBeforeAnswer).toBeLessThan(THIRTY_MB);
  }, 15_000);

  test('when register is called past its rate limit, then 429 arrives before the body is sent, and unreadable bodies counted too', async () => {
    const ip = anIp();
    const { body } = multipartBody(registration());
    for (let i = 0; i < 20; i += 1) {
      // Bodies that fail to parse still count: the budget is spent on arrival, not after parsing.
      const res = await rawRequest(app.url, { method: 'POST', path: '/api/auth/register/', headers: { 'X-Forwarded-For': ip, 'Content-Type': 'multipart/form-data', 'Content-Length': body.length }, chunks: [body] });
      expect(res.status).toBe(400);
    }
    const { boundary, body: valid } = multipartBody(registration());
    const res = await rawRequest(app.url, {
      method: 'POST',
      path: '/api/auth/register/',
      headers: { 'X-Forwarded-For': ip, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': valid.length + 1000 },
      chunks: [valid],
      end: false,
    });
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
  }, 15_000);
});

describe('multipart limits', () => {
  test('when a form carries more text fields than any operation reads, then 400 and nothing is written', async () => {
    const alice = await aUser(app);
    const fields = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, 'x']));
    const { boundary, body } = multipartBody({ bio: 'changed', ...fields });
    const res = await rawRequest(app.url, { method: 'PATCH', path: '/api/users/profile/', headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': body.length }, chunks: [body] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ['Too many fields in the form.'] });
    expect((await app.rest('GET', '/api/users/profile/', { token: alice.token })).body.bio).toBe(alice.body.bio);
  });

  test('when a text field is larger than 64 KiB, then 400 on that field', async () => {
    const alice = await aUser(app);
    const { boundary, body } = multipartBody({ bio: 'x'.repeat(64 * 1024 + 1) });
    const res = await rawRequest(app.url, { method: 'PATCH', path: '/api/users/profile/', headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': body.length }, chunks: [body] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ bio: ['A field value is too long.'] });
  });

  test('when a field name indexes a huge array, then 400 before the array is built', async () => {
    const alice = await aUser(app);
    const { boundary, body } = multipartBody({ 'bio[99999999]': 'x' });
    const res = await rawRequest(app.url, { method: 'PATCH', path: '/api/users/profile/', headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': body.length }, chunks: [body] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ 'bio[99999999]': ['An array index in a field name is too large.'] });
  });

  test('when a body announces more bytes than the operation can take, then 413 before it is read', async () => {
    const alice = await aUser(app);
    const { boundary, body } = multipartBody({ bio: 'x' });
    const res = await rawRequest(app.url, {
      method: 'PATCH',
      path: '/api/users/profile/',
      headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': 200 * 1024 * 1024 },
      chunks: [body],
      end: false,
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body is too large.' });
  });

  test('when a chunked body (no length announced) grows past the cap, with every part within its own limit, then 413', async () => {
    const alice = await aUser(app);
    const boundary = '----chunked-cap';
    const part = (name: string, value: Buffer, filename?: string) =>
      Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n`), value, Buffer.from('\r\n')]);
    const tenMb = Buffer.alloc(10 * 1024 * 1024, 'a');
    const fields = Array.from({ length: 40 }, (_, i) => part(`f${i}`, Buffer.alloc(64 * 1024, 'b')));
    const res = await rawRequest(app.url, {
      method: 'PATCH',
      path: '/api/users/profile/',
      headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Transfer-Encoding': 'chunked' },
      chunks: [part('profile_picture', tenMb, 'a.png'), part('banner', tenMb, 'b.png'), ...fields, Buffer.from(`--${boundary}--\r\n`)],
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body is too large.' });
  }, 15_000);
});
