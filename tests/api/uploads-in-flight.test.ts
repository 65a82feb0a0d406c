import http from 'node:http';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { JPEG_1X1 } from '../helpers/images.js';

/**
 * Upload bodies are held in memory while they arrive: one caller may have only a couple in progress at once,
 * whatever its rate-limit budget, so that a single account cannot fill a node's memory with slow uploads.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const BOUNDARY = 'in-flight-boundary';

/** A profile-picture upload that sends its first part and then waits (chunked: no length announced). */
function aSlowUpload(token: string): { request: http.ClientRequest; answered: Promise<number> } {
  const url = new URL('/api/users/profile/', app.url);
  const request = http.request(url, {
    method: 'PATCH',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Transfer-Encoding': 'chunked' },
  });
  const answered = new Promise<number>((resolve) => {
    request.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    request.on('error', () => resolve(-1));
  });
  request.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="profile_picture"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`);
  request.write(JPEG_1X1.subarray(0, 10));
  return { request, answered };
}

test('when a user has two uploads in progress, then a third is refused 429 with Retry-After; once they end, uploads are accepted again', async () => {
  const user = await aUser(app);
  const slow = [aSlowUpload(user.token), aSlowUpload(user.token)];
  // Let the server start reading both bodies.
  await new Promise((resolve) => setTimeout(resolve, 300));

  const third = await app.http().patch('/api/users/profile/').set('Authorization', `Bearer ${user.token}`).attach('profile_picture', JPEG_1X1, 'c.jpg');
  expect(third.status).toBe(429);
  expect(third.body).toEqual({ detail: 'Request was throttled. Expected available in 1 second.' });
  expect(third.headers['retry-after']).toBe('1');

  // Another user is not affected.
  const other = await aUser(app);
  expect((await app.http().patch('/api/users/profile/').set('Authorization', `Bearer ${other.token}`).attach('profile_picture', JPEG_1X1, 'o.jpg')).status).toBe(200);

  // The slow uploads finish: the caller may upload again.
  for (const { request } of slow) request.end(`${JPEG_1X1.subarray(10).toString('binary')}\r\n--${BOUNDARY}--\r\n`, 'binary');
  await Promise.all(slow.map((s) => s.answered));
  const again = await app.http().patch('/api/users/profile/').set('Authorization', `Bearer ${user.token}`).attach('profile_picture', JPEG_1X1, 'd.jpg');
  expect(again.status).toBe(200);
});
