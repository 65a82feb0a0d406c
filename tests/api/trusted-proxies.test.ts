import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { anIp, callerFrom } from '../helpers/caller.js';

/**
 * TRUSTED_PROXIES names the only peers whose X-Forwarded-For is believed. This app trusts a private
 * range its test clients are not in (they connect from 127.0.0.1): each client's X-Forwarded-For is a
 * spoof, and every request counts against the one real address, on REST and on the socket.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ TRUSTED_PROXIES: '10.0.0.0/8' });
});
afterAll(async () => {
  await app.stop();
});

test('when a peer outside TRUSTED_PROXIES sends a different X-Forwarded-For with each request, then the rate limit still counts its own address', async () => {
  // Register allows 20 per hour per address; an empty body is refused (400) but counted on arrival.
  for (let i = 0; i < 20; i += 1) {
    expect((await callerFrom(app, anIp()).rest('POST', '/api/auth/register/', { body: {} })).status).toBe(400);
  }
  const overRest = await callerFrom(app, anIp()).rest('POST', '/api/auth/register/', { body: {} });
  expect(overRest.status).toBe(429);
  expect(overRest.body).toEqual({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds\.$/) });
  const overSocket = await callerFrom(app, anIp()).emit('accounts.register', {});
  expect(overSocket.status).toBe(429);
});
