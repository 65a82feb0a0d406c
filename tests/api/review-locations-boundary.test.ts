import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aLocation, adminEnv, loginAdmin } from '../builders/locations.js';

let app: TestApp;
const admin = adminEnv();
let adminToken: string;
beforeAll(async () => {
  app = await startTestApp(admin);
  adminToken = await loginAdmin(app, admin);
});
afterAll(async () => {
  await app.stop();
});

describe('boundary of a one-member location', () => {
  test('when a location has a single member, then a recalculation keeps the initial 500 m (one point says nothing about the spread)', async () => {
    const a = await aLocation(app, { size: 1 });
    const res = await app.rest('POST', `/api/locations/locations/${a.id}/update_boundary/`, { token: adminToken });
    expect(res).toMatchObject({ status: 200, body: { members_with_coordinates: 1, location: { estimated_radius: 500, total_users: 1 } } });
  });
});
