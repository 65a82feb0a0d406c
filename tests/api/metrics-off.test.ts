import { startTestApp, type TestApp } from '../helpers/test-app.js';

// A file of its own: the platform is one per process, so a second app cannot run beside metrics.test.ts's.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

test('when METRICS_TOKEN is not set, then /metrics does not exist, whatever token is presented', async () => {
  const res = await app.http().get('/metrics').set('Authorization', 'Bearer metrics-token-for-the-tests-0123456789');
  expect(res.status).toBe(404);
  expect(res.text).not.toContain('hyperlocal_');
});
