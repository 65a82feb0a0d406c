import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { openApiFit } from '../helpers/openapi-fit.js';
import type { TestUser } from '../builders/users.js';
import { aComment, aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { aProduct, aStore } from '../builders/stores.js';
import { aCommunity } from '../builders/communities.js';
import { aBlock, aReport } from '../builders/safety.js';
import { aResident } from '../builders/locations.js';

/**
 * Reports (DESIGN.md section 9): who may report what, the 201 / 200 of a first and a repeated report, the
 * reporter's own list, validation and the rate limit, over both transports. Moderation: safety-moderation.test.ts.
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
const report = (user: TestUser, body: Record<string, unknown>) => app.rest('POST', '/api/safety/reports/', { token: user.token, body });
const reportOverSocket = (user: TestUser, body: Record<string, unknown>) => app.emit('safety.reports_create', body, { token: user.token });
const missing = '00000000-0000-4000-8000-000000000000';

/** Two neighbours of one place: bob wrote a post, alice reads it. */
async function aStreet() {
  const place = await aNeighbourhood(app);
  const bob = await aResidentOf(app, place);
  const alice = await aResidentOf(app, place);
  const post = await aPost(app, bob);
  return { alice, bob, post };
}

describe('POST /api/safety/reports/', () => {
  test('when a neighbour reports a post, then 201 with {id, target_type, target_id, reason, status: open, created_at}; again 200 with the same open report, on both transports', async () => {
    const { alice, post } = await aStreet();
    const first = await report(alice, { target_type: 'post', target_id: post.id, reason: 'spam', details: 'Selling followers' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(String), target_type: 'post', target_id: post.id, reason: 'spam', status: 'open', created_at: expect.stringMatching(/Z$/) });
    expectBodyFits(successSchema('/api/safety/reports/', 'post', 201), first.body, 'safety.reports_create');

    // The same reporter and thing again, with another reason: the open report, unchanged.
    const again = await report(alice, { target_type: 'post', target_id: post.id, reason: 'scam' });
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(await reportOverSocket(alice, { target_type: 'post', target_id: post.id, reason: 'spam' })).toEqual({ status: 200, body: first.body });
  });

  test('when each kind of thing is reported by someone who can see it, then each is 201 (comment, user, message, store, product, community)', async () => {
    const alice = await aResidentOf(app);
    const bob = await aResidentOf(app);
    const comment = await aComment(app, bob, (await aPost(app, alice)).id);
    const conversation = await aConversation(app, alice, bob);
    const message = await aMessage(app, bob, conversation.id, 'buy my stuff');
    const store = await aStore(app, bob);
    const product = await aProduct(app, bob, store.id);
    const community = await aCommunity(app, bob);
    for (const [target_type, target_id] of [
      ['comment', comment.id],
      ['user', bob.id],
      ['message', message.id],
      ['store', store.id],
      ['product', product.id],
      ['community', community.id],
    ]) {
      const res = await report(alice, { target_type, target_id, reason: 'other' });
      expect({ target_type, status: res.status, body: res.body }).toEqual({ target_type, status: 201, body: expect.objectContaining({ target_type, target_id, status: 'open' }) });
    }
  });

  test('when the reporter cannot see the thing, then 404 with the body its read answers, on both transports', async () => {
    const alice = await aResidentOf(app);
    const bob = await aResidentOf(app);
    const carol = await aResident(app);
    const byBob = await aPost(app, bob);
    await aBlock(app, bob, alice);
    // A post of someone in a block with the reporter does not exist for them: its read is 404, and so is the report.
    const read = await app.rest('GET', `/api/feed/posts/${byBob.id}/`, { token: alice.token });
    expect(read.status).toBe(404);
    expect(await report(alice, { target_type: 'post', target_id: byBob.id, reason: 'spam' })).toMatchObject({ status: 404, body: read.body });
    expect(await reportOverSocket(alice, { target_type: 'post', target_id: byBob.id, reason: 'spam' })).toEqual({ status: 404, body: read.body });

    // A message only for its conversation's participants.
    const conversation = await aConversation(app, bob, carol);
    const message = await aMessage(app, carol, conversation.id, 'private');
    const dave = await aResident(app);
    expect(await report(dave, { target_type: 'message', target_id: message.id, reason: 'harassment' })).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    expect((await report(bob, { target_type: 'message', target_id: message.id, reason: 'harassment' })).status).toBe(201);

    // Unknown things answer as their reads do (a store's own wording included).
    const storeRead = await app.rest('GET', `/api/stores/stores/${missing}/`);
    expect(await report(dave, { target_type: 'store', target_id: missing, reason: 'scam' })).toMatchObject({ status: 404, body: storeRead.body });
    for (const target_type of ['post', 'comment', 'user', 'message', 'product', 'community']) {
      expect(await report(dave, { target_type, target_id: missing, reason: 'other' })).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    }
  });

  test("when someone reports their own post or themselves, then 400 on target_id", async () => {
    const alice = await aResidentOf(app);
    const post = await aPost(app, alice);
    expect(await report(alice, { target_type: 'post', target_id: post.id, reason: 'spam' })).toMatchObject({ status: 400, body: { target_id: ['You cannot report your own content.'] } });
    expect(await report(alice, { target_type: 'user', target_id: alice.id, reason: 'spam' })).toMatchObject({ status: 400, body: { target_id: ['You cannot report yourself.'] } });
  });

  test('when the input is wrong, then 400 field errors, the same on both transports; details is bounded to 1000 characters', async () => {
    const alice = await aResident(app);
    const bad = { target_type: 'poem', target_id: 'nope', reason: 'boring', details: 'x'.repeat(1001) };
    const rest = await report(alice, bad);
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({
      target_type: ['"poem" is not a valid choice.'],
      target_id: ['Invalid UUID format.'],
      reason: ['"boring" is not a valid choice.'],
      details: ['Ensure this field has no more than 1000 characters.'],
    });
    expect(await reportOverSocket(alice, bad)).toEqual({ status: 400, body: rest.body });
    expect(await report(alice, {})).toMatchObject({ status: 400, body: { target_type: ['This field is required.'], target_id: ['This field is required.'], reason: ['This field is required.'] } });
    expect((await app.rest('POST', '/api/safety/reports/', { body: { target_type: 'user', target_id: alice.id, reason: 'spam' } })).status).toBe(401);
  });

  test('when a user reports more than 30 times in an hour, then 429 with Retry-After, as the other safety operations limit', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const body = { target_type: 'user', target_id: bob.id, reason: 'spam' };
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push((await report(alice, body)).status);
    expect(answers).toEqual([201, ...Array(29).fill(200)]);
    const over = await report(alice, body);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds?\.$/) });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('GET /api/safety/reports/', () => {
  test("when a user lists their reports, then only their own, newest first, paginated, the same over both transports", async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const carol = await aResident(app);
    const first = await aReport(app, alice, 'user', bob.id, { reason: 'harassment' });
    const second = await aReport(app, alice, 'user', carol.id, { reason: 'hate' });
    await aReport(app, bob, 'user', carol.id);

    const rest = await app.rest('GET', '/api/safety/reports/', { token: alice.token, query: { page_size: 1 } });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ count: 2, previous: null, results: [second] });
    expect(rest.body.next).toContain('/api/safety/reports/?page=2&page_size=1');
    expectBodyFits(successSchema('/api/safety/reports/'), rest.body, 'safety.reports_list');
    expect(await app.emit('safety.reports_list', { page_size: 1 }, { token: alice.token })).toEqual({ status: 200, body: rest.body });
    const page2 = await app.rest('GET', '/api/safety/reports/', { token: alice.token, query: { page: 2, page_size: 1 } });
    expect(page2.body.results).toEqual([first]);
    expect((await app.rest('GET', '/api/safety/reports/', { token: alice.token, query: { page: 3, page_size: 1 } })).body).toEqual({ detail: 'Invalid page.' });
  });

  test('when two people report the same thing, then each lists their own report of it', async () => {
    const alice = await aResident(app);
    const bob = await aResident(app);
    const carol = await aResident(app);
    const byAlice = await aReport(app, alice, 'user', carol.id);
    const byBob = await aReport(app, bob, 'user', carol.id, { reason: 'scam' });
    expect(byBob.id).not.toBe(byAlice.id);
    expect((await app.rest('GET', '/api/safety/reports/', { token: bob.token })).body.results).toEqual([byBob]);
  });
});
