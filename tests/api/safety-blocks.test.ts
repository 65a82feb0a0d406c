import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser, type TestUser } from '../builders/users.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const summary = (u: TestUser) => ({ id: u.id, username: u.username, display_name: u.body.display_name, profile_picture: null });
const missingUser = '00000000-0000-4000-8000-000000000000';

// Blocks and mutes have the same operations and shapes: every case runs for both.
describe.each(['blocks', 'mutes'])('/api/safety/%s/', (kind) => {
  test(`when a user ${kind} another, then 201 with {user, created_at}; again 200 with the same entry; both transports agree`, async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const first = await app.rest('POST', `/api/safety/${kind}/`, { token: alice.token, body: { user_id: bob.id } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ user: summary(bob), created_at: expect.stringMatching(/Z$/) });
    const again = await app.rest('POST', `/api/safety/${kind}/`, { token: alice.token, body: { user_id: bob.id } });
    expect(again).toMatchObject({ status: 200, body: first.body });
    const overSocket = await app.emit(`safety.${kind}_create`, { user_id: bob.id }, { token: alice.token });
    expect(overSocket).toEqual({ status: 200, body: first.body });
  });

  test('when the list is read, then it is paginated newest first over both transports', async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const carol = await aUser(app);
    await app.rest('POST', `/api/safety/${kind}/`, { token: alice.token, body: { user_id: bob.id } });
    await app.emit(`safety.${kind}_create`, { user_id: carol.id }, { token: alice.token });
    const rest = await app.rest('GET', `/api/safety/${kind}/`, { token: alice.token, query: { page_size: 1 } });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ count: 2, previous: null, results: [{ user: summary(carol) }] });
    expect(rest.body.next).toContain(`/api/safety/${kind}/?page=2&page_size=1`);
    const socket = await app.emit(`safety.${kind}_list`, { page_size: 1 }, { token: alice.token });
    expect(socket).toEqual({ status: 200, body: rest.body });
    const page2 = await app.rest('GET', `/api/safety/${kind}/`, { token: alice.token, query: { page: 2, page_size: 1 } });
    expect(page2.body.results).toEqual([{ user: summary(bob), created_at: expect.any(String) }]);
    // The other side's list is its own: bob did nothing.
    const bobs = await app.rest('GET', `/api/safety/${kind}/`, { token: bob.token });
    expect(bobs.body).toMatchObject({ count: 0, results: [] });
  });

  test('when the entry is deleted, then 204 and it leaves the list; deleting again is still 204', async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    await app.rest('POST', `/api/safety/${kind}/`, { token: alice.token, body: { user_id: bob.id } });
    const removed = await app.rest('DELETE', `/api/safety/${kind}/${bob.id}/`, { token: alice.token });
    expect(removed.status).toBe(204);
    expect((await app.rest('GET', `/api/safety/${kind}/`, { token: alice.token })).body.count).toBe(0);
    expect(await app.emit(`safety.${kind}_delete`, { user_id: bob.id }, { token: alice.token })).toEqual({ status: 204, body: null });
  });

  test('when the target is the caller, unknown, or not a UUID, then 400 / 404 / 400 on both transports', async () => {
    const alice = await aUser(app);
    const verb = kind === 'blocks' ? 'block' : 'mute';
    const cases: Array<[unknown, number, unknown]> = [
      [alice.id, 400, { user_id: [`You cannot ${verb} yourself.`] }],
      [missingUser, 404, { detail: 'Not found.' }],
      ['nope', 400, { user_id: ['Invalid UUID format.'] }],
    ];
    for (const [userId, status, body] of cases) {
      const rest = await app.rest('POST', `/api/safety/${kind}/`, { token: alice.token, body: { user_id: userId } });
      expect(rest).toMatchObject({ status, body });
      expect(await app.emit(`safety.${kind}_create`, { user_id: userId }, { token: alice.token })).toEqual({ status, body });
    }
    expect(await app.rest('DELETE', `/api/safety/${kind}/${missingUser}/`, { token: alice.token })).toMatchObject({ status: 404 });
    expect(await app.rest('POST', `/api/safety/${kind}/`, { body: { user_id: missingUser } })).toMatchObject({ status: 401 });
  });

  test('when the OpenAPI document is read, then the three operations are in it', async () => {
    const doc = await app.rest('GET', '/api/docs/openapi.json');
    expect(doc.body.paths[`/api/safety/${kind}/`].post.operationId).toBe(`safety.${kind}_create`);
    expect(doc.body.paths[`/api/safety/${kind}/`].get.operationId).toBe(`safety.${kind}_list`);
    expect(doc.body.paths[`/api/safety/${kind}/{user_id}/`].delete.operationId).toBe(`safety.${kind}_delete`);
  });
});
