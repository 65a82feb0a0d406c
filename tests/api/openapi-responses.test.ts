import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { openApiFit } from '../helpers/openapi-fit.js';
import { aUser } from '../builders/users.js';
import { aNotification } from '../builders/notifications.js';

/**
 * The OpenAPI document tells generated clients the shapes of the main resources, and those shapes are
 * the ones the service really answers: each documented schema is checked against a real response.
 */
let app: TestApp;
let doc: any;
beforeAll(async () => {
  app = await startTestApp();
  doc = (await app.rest('GET', '/api/docs/openapi.json')).body;
});
afterAll(async () => {
  await app.stop();
});

const { successSchema, expectBodyFits } = openApiFit(() => doc);

describe('response schemas in the OpenAPI document', () => {
  test('when users.profile is documented, then its 200 is the User component and a real profile fits it', async () => {
    const entry = doc.paths['/api/users/profile/'].get;
    expect(entry.operationId).toBe('users.profile');
    expect(entry.responses[200].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/User' });
    const user = doc.components.schemas.User;
    expect(Object.keys(user.properties)).toEqual(expect.arrayContaining(['id', 'email', 'username', 'display_name', 'profile_picture', 'location', 'created_at']));
    expect(user.required).not.toContain('email');

    const alice = await aUser(app);
    const real = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    expect(Object.keys(real.body).length).toBeGreaterThan(5);
    expectBodyFits(user, real.body, 'users.profile');
  });

  test('when login, refresh, the public profile, nearby users, notifications and a location are called, then each real body fits its documented schema', async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const place = { country: 'Schemaland', city: `Town ${alice.username}`, latitude: 52.5, longitude: 13.4 };
    for (const u of [alice, bob]) await app.rest('POST', '/api/users/update-location/', { token: u.token, body: place });
    await aNotification(app, alice.id, { actorId: bob.id });

    const login = await app.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } });
    expectBodyFits(successSchema('/api/auth/login/', 'post'), login.body, 'accounts.login');
    const refreshed = await app.rest('POST', '/api/auth/refresh/', { body: { refresh: login.body.refresh_token } });
    expect(refreshed.status).toBe(200);
    expectBodyFits(successSchema('/api/auth/refresh/', 'post'), refreshed.body, 'accounts.refresh');
    expectBodyFits(successSchema('/api/users/{username}', 'get'), (await app.rest('GET', `/api/users/${bob.username}`)).body, 'users.get');

    const nearby = await app.rest('GET', '/api/users/nearby-users/', { token: alice.token });
    expect(nearby.body.results.length).toBeGreaterThan(0);
    expectBodyFits(successSchema('/api/users/nearby-users/', 'get'), nearby.body, 'users.nearby');

    const notifications = await app.rest('GET', '/api/notifications/', { token: alice.token });
    expect(notifications.body.results[0].actor).not.toBeNull();
    expectBodyFits(successSchema('/api/notifications/', 'get'), notifications.body, 'notifications.list');

    const profile = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    const location = await app.rest('GET', `/api/locations/locations/${profile.body.location.id}/`, { token: alice.token });
    expect(location.status).toBe(200);
    expectBodyFits(successSchema('/api/locations/locations/{location_id}/', 'get'), location.body, 'locations.detail');
    const list = await app.rest('GET', '/api/locations/locations/', { token: alice.token, query: { search: 'Town' } });
    expectBodyFits(successSchema('/api/locations/locations/', 'get'), list.body, 'locations.list');
  });

  test('when an operation needs a user, then its 401 is documented as {detail}; rate-limited operations document 429', () => {
    expect(doc.paths['/api/users/profile/'].get.responses[401].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/DetailError' });
    expect(doc.components.schemas.DetailError).toMatchObject({ type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] });
    expect(doc.paths['/api/auth/register/'].post.responses[429]).toBeDefined();
    expect(doc.paths['/api/auth/register/'].post.responses[201].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Session' });
  });
});
