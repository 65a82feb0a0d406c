import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

describe('GET /api/users/search/', () => {
  test('when the query parameter is missing or blank, then 400 {error: Query parameter is required}', async () => {
    const alice = await aUser(app);
    for (const query of [undefined, { query: '' }, { query: '   ' }]) {
      const res = await app.rest('GET', '/api/users/search/', { token: alice.token, query });
      expect(res).toEqual(expect.objectContaining({ status: 400, body: { error: 'Query parameter is required' } }));
    }
  });

  test('when no token is sent, then 401', async () => {
    const res = await app.rest('GET', '/api/users/search/', { query: { query: 'x' } });
    expect(res).toMatchObject({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
  });

  test('when the query matches part of a username or display name in another case, then those users come back as {id, username, display_name, profile_picture}', async () => {
    const tag = unique('zq').toLowerCase();
    const byUsername = await aUser(app, { username: `${tag}_walker` });
    const byDisplayName = await aUser(app, { display_name: `Maria ${tag.toUpperCase()} Lopez` });
    const unrelated = await aUser(app);
    const res = await app.rest('GET', '/api/users/search/', { token: unrelated.token, query: { query: tag.slice(1).toUpperCase() } });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    const ids = res.body.map((u: { id: string }) => u.id);
    expect(ids).toEqual(expect.arrayContaining([byUsername.id, byDisplayName.id]));
    expect(ids).not.toContain(unrelated.id);
    expect(res.body.find((u: { id: string }) => u.id === byUsername.id)).toEqual({ id: byUsername.id, username: byUsername.username, display_name: byUsername.body.display_name, profile_picture: null });
    for (const user of res.body) expect(Object.keys(user).sort()).toEqual(['display_name', 'id', 'profile_picture', 'username']);
  });

  test('when the query holds LIKE wildcards, then they match literally', async () => {
    const alice = await aUser(app);
    const res = await app.rest('GET', '/api/users/search/', { token: alice.token, query: { query: '%_%' } });
    expect(res.status).toBe(200);
    for (const user of res.body) expect(`${user.username} ${user.display_name}`).toContain('%_%');
  });

  test('when the same search runs over REST and the socket, then status and body are identical', async () => {
    const tag = unique('zr');
    const alice = await aUser(app, { display_name: `Parity ${tag}` });
    const rest = await app.rest('GET', '/api/users/search/', { token: alice.token, query: { query: tag } });
    const socket = await app.emit('users.search', { query: tag }, { token: alice.token });
    expect(rest.body).toHaveLength(1);
    expect(socket).toEqual({ status: rest.status, body: rest.body });
    const missingRest = await app.rest('GET', '/api/users/search/', { token: alice.token });
    const missingSocket = await app.emit('users.search', {}, { token: alice.token });
    expect(missingSocket).toEqual({ status: missingRest.status, body: missingRest.body });
  });
});
