import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aLocation, adminEnv, loginAdmin } from '../builders/locations.js';
import { sql } from '../helpers/sql.js';

let app: TestApp;
const admin = adminEnv();
let adminToken: string;
let adminId: string;
beforeAll(async () => {
  app = await startTestApp(admin);
  adminToken = await loginAdmin(app, admin);
  adminId = (await app.rest('GET', '/api/users/profile/', { token: adminToken })).body.id;
});
afterAll(async () => {
  await app.stop();
});

const logOf = (locationId: string) =>
  sql<{ action: string; actor_id: string | null; details: any }>('SELECT action, actor_id, details FROM location_moderation_logs WHERE location_id = $1 ORDER BY created_at, id', [locationId]);

describe('boundary of a one-member location', () => {
  test('when a location has a single member, then a recalculation keeps the initial 500 m (one point says nothing about the spread)', async () => {
    const a = await aLocation(app, { size: 1 });
    const res = await app.rest('POST', `/api/locations/locations/${a.id}/update_boundary/`, { token: adminToken });
    expect(res).toMatchObject({ status: 200, body: { members_with_coordinates: 1, location: { estimated_radius: 500, total_users: 1 } } });
  });
});

describe('moderation log of administrative actions', () => {
  test('when an administrator forces a boundary recalculation that changes nothing, then the action is still logged with the administrator as actor', async () => {
    // One member at the centre: the boundary drawn from it is the one the location already has.
    const a = await aLocation(app, { size: 1 });
    const before = (await logOf(a.id)).length;
    const rest = await app.rest('POST', `/api/locations/locations/${a.id}/update_boundary/`, { token: adminToken });
    expect(rest).toMatchObject({ status: 200, body: { message: 'Boundary unchanged', members_with_coordinates: 1 } });
    const socket = await app.emit('locations.update_boundary', { location_id: a.id }, { token: adminToken });
    expect(socket).toMatchObject({ status: 200, body: { message: 'Boundary unchanged' } });
    const added = (await logOf(a.id)).slice(before);
    expect(added).toEqual([
      { action: 'boundary_recalculated', actor_id: adminId, details: expect.objectContaining({ reason: 'manual', changed: false }) },
      { action: 'boundary_recalculated', actor_id: adminId, details: expect.objectContaining({ reason: 'manual', changed: false }) },
    ]);
  });
});
