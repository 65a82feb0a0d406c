import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

describe('the operation kernel', () => {
  test('when a route is unknown, then 404 {detail: Not found.}', async () => {
    const res = await app.rest('GET', '/api/does-not-exist/');
    expect(res).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
  });

  test('when the same operation runs over REST and the socket, then status and body are identical', async () => {
    const alice = await aUser(app);
    const rest = await app.rest('GET', '/api/users/profile/', { token: alice.token });
    const socket = await app.emit('users.profile', {}, { token: alice.token });
    expect(rest.status).toBe(200);
    expect(socket).toEqual({ status: rest.status, body: rest.body });
  });
});
