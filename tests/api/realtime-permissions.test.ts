import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';

/**
 * A live socket is checked like a REST request on every event: a change of rights made by an
 * administrator applies to sockets that were already connected, not only to new connections.
 */
const ADMIN_EMAIL = `${unique('admin')}@example.test`;
const ADMIN_PASSWORD = 'admin-password-123';
let app: TestApp;
let adminToken: string;

beforeAll(async () => {
  app = await startTestApp({ ADMIN_EMAIL, ADMIN_PASSWORD });
  const login = await app.rest('POST', '/api/auth/login/', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
  adminToken = login.body.access_token;
});
afterAll(async () => {
  await app.stop();
});

const setStaff = (username: string, isStaff: boolean) =>
  app.rest('PATCH', `/api/admin/users/${username}/`, { token: adminToken, body: { is_staff: isStaff } });

test('when staff rights are granted and revoked, then an already connected socket gains and loses them at once', async () => {
  const moderator = await aUser(app);
  const socket = await app.socket(moderator.token);
  const analytics = () => socket.timeout(5000).emitWithAck('locations.analytics', {});

  expect((await analytics()).status).toBe(403);
  expect((await setStaff(moderator.username, true)).status).toBe(200);
  expect((await analytics()).status).toBe(200);
  expect((await setStaff(moderator.username, false)).status).toBe(200);
  expect(await analytics()).toEqual({ status: 403, body: { detail: 'You do not have permission to perform this action.' } });
});
