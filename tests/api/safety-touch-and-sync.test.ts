import { nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import type { TestUser } from '../builders/users.js';
import { aNeighbourhood, aComment, aPoll, aPost, aResidentOf } from '../builders/posts.js';
import { aBlock, aMute } from '../builders/safety.js';
import { useLateCommitMargin } from '../../src/modules/sync/sync.service.js';

/**
 * A block (DESIGN.md section 9): each one's posts and comments do not exist for the other, so neither can touch
 * them (like, bookmark, vote, comment, reply, like a comment: answered as for a missing one), and realtime.sync,
 * the path a phone catches up by, leaves out the posts of everyone in a block with the caller or muted by them.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  useLateCommitMargin(0);
});
afterAll(async () => {
  useLateCommitMargin();
  await app.stop();
});

const NOT_FOUND = { status: 404, body: { detail: 'Not found.' } };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ids = (items: Array<{ id: string }>) => items.map((i) => i.id);

/** The same operation over REST and over the socket: the same status and body. */
async function bothWays(user: TestUser, rest: [method: 'GET' | 'POST', path: string, body?: object], op: [name: string, input: object]) {
  const overRest = await app.rest(rest[0], rest[1], { token: user.token, body: rest[2] });
  const overSocket = await app.emit(op[0], op[1], { token: user.token });
  expect(overSocket).toEqual({ status: overRest.status, body: overRest.body });
  return overSocket;
}

async function aStreetWithABlock() {
  const place = await aNeighbourhood(app);
  const alice = await aResidentOf(app, place);
  const bob = await aResidentOf(app, place);
  await aBlock(app, alice, bob);
  return { place, alice, bob };
}

describe('a blocked person cannot touch the other\'s posts and comments', () => {
  test('when alice blocked bob, then liking, bookmarking and voting on the other\'s post is 404 both ways over both transports, and no counter moves', async () => {
    const { alice, bob } = await aStreetWithABlock();
    const [byAlice, byBob] = [await aPoll(app, alice), await aPoll(app, bob)];
    for (const [actor, post] of [[bob, byAlice], [alice, byBob]] as const) {
      expect(await bothWays(actor, ['POST', `/api/feed/posts/${post.id}/like/`], ['posts.like', { post_id: post.id }])).toEqual(NOT_FOUND);
      expect(await bothWays(actor, ['POST', `/api/feed/posts/${post.id}/bookmark/`], ['posts.bookmark', { post_id: post.id }])).toEqual(NOT_FOUND);
      const option = post.poll_data.options[0].id;
      expect(await bothWays(actor, ['POST', `/api/feed/posts/${post.id}/vote_poll/`, { option_id: option }], ['posts.vote_poll', { post_id: post.id, option_id: option }])).toEqual(NOT_FOUND);
    }
    const read = await app.rest('GET', `/api/feed/posts/${byAlice.id}/`, { token: alice.token });
    expect(read.body.likes_count).toBe(0);
    expect(read.body.poll_data.options.map((o: { votes_count: number }) => o.votes_count)).toEqual([0, 0, 0]);
  });

  test('when alice blocked bob, then commenting on the other\'s post is answered as for a missing post, over both transports, and nothing is stored', async () => {
    const { alice, bob } = await aStreetWithABlock();
    const byAlice = await aPost(app, alice);
    const answer = await bothWays(bob, ['POST', '/api/posts/comments/', { post: byAlice.id, content: 'hello' }], ['comments.create', { post: byAlice.id, content: 'hello' }]);
    const missing = await app.rest('POST', '/api/posts/comments/', { token: bob.token, body: { post: '00000000-0000-4000-8000-000000000000', content: 'hello' } });
    expect(answer).toEqual({ status: missing.status, body: missing.body });
    expect(answer.status).toBe(400);
    expect((await app.rest('GET', `/api/feed/posts/${byAlice.id}/`, { token: alice.token })).body.comments_count).toBe(0);
  });

  test('when alice blocked bob, then on carol\'s post neither can reply to or like the other\'s comment; carol can', async () => {
    const { place, alice, bob } = await aStreetWithABlock();
    const carol = await aResidentOf(app, place);
    const byCarol = await aPost(app, carol);
    const [aliceSays, bobSays] = [await aComment(app, alice, byCarol.id), await aComment(app, bob, byCarol.id)];
    for (const [actor, comment] of [[bob, aliceSays], [alice, bobSays]] as const) {
      const reply = { post: byCarol.id, content: 'a reply', parent: comment.id };
      const answer = await bothWays(actor, ['POST', '/api/posts/comments/', reply], ['comments.create', reply]);
      expect(answer).toMatchObject({ status: 400 });
      expect(JSON.stringify(answer.body)).toContain('Comment not found.');
      expect(await bothWays(actor, ['POST', `/api/posts/comments/${comment.id}/like/`], ['comments.like', { comment_id: comment.id }])).toEqual(NOT_FOUND);
      expect(await bothWays(actor, ['POST', `/api/posts/comments/${comment.id}/bookmark/`], ['comments.bookmark', { comment_id: comment.id }])).toEqual(NOT_FOUND);
    }
    expect((await app.rest('POST', `/api/posts/comments/${bobSays.id}/like/`, { token: carol.token })).status).toBe(200);
    expect((await app.rest('POST', '/api/posts/comments/', { token: carol.token, body: { post: byCarol.id, content: 'ok', parent: bobSays.id } })).status).toBe(201);
  });

  test('when nobody blocked anybody, then the same likes, votes and comments succeed (the refusals above come from the block)', async () => {
    const place = await aNeighbourhood(app);
    const [alice, bob] = [await aResidentOf(app, place), await aResidentOf(app, place)];
    const byAlice = await aPoll(app, alice);
    expect((await app.rest('POST', `/api/feed/posts/${byAlice.id}/like/`, { token: bob.token })).status).toBe(200);
    expect((await app.rest('POST', `/api/feed/posts/${byAlice.id}/vote_poll/`, { token: bob.token, body: { option_id: byAlice.poll_data.options[0].id } })).status).toBe(200);
    const comment = await aComment(app, alice, byAlice.id);
    expect((await app.rest('POST', `/api/posts/comments/${comment.id}/like/`, { token: bob.token })).status).toBe(200);
  });
});

describe('pushes about a blocked person\'s post', () => {
  test('when alice watched bob\'s post and then blocked him, then its comments, stats and poll results stop reaching her; carol still hears them', async () => {
    const place = await aNeighbourhood(app);
    const [alice, bob, carol] = [await aResidentOf(app, place), await aResidentOf(app, place), await aResidentOf(app, place)];
    const byBob = await aPoll(app, bob);
    const [aliceSocket, carolSocket] = [await app.socket(alice.token), await app.socket(carol.token)];
    for (const socket of [aliceSocket, carolSocket]) {
      expect(await socket.timeout(5000).emitWithAck('subscribe', { channel: 'post', id: byBob.id })).toMatchObject({ status: 200 });
    }
    await aBlock(app, alice, bob);
    // The block's hiding room is joined by alice's sockets after its commit: give the push a moment to land.
    await new Promise((r) => setTimeout(r, 300));

    const silence = [noEvent(aliceSocket, 'comment:created', 1500), noEvent(aliceSocket, 'post:stats', 1500), noEvent(aliceSocket, 'poll:updated', 1500)];
    const carolHears = [nextEvent(carolSocket, 'comment:created'), nextEvent(carolSocket, 'post:stats'), nextEvent(carolSocket, 'poll:updated')];
    await aComment(app, carol, byBob.id);
    expect((await app.rest('POST', `/api/feed/posts/${byBob.id}/vote_poll/`, { token: carol.token, body: { option_id: byBob.poll_data.options[0].id } })).status).toBe(200);
    await Promise.all(carolHears);
    await Promise.all(silence);
  });
});

describe('realtime.sync leaves out what a block or a mute hides', () => {
  test('when alice blocked bob and muted dave, then her catch-up lists carol\'s posts only, bob\'s lists no post of hers, over both transports', async () => {
    const place = await aNeighbourhood(app);
    const [alice, bob, carol, dave] = [await aResidentOf(app, place), await aResidentOf(app, place), await aResidentOf(app, place), await aResidentOf(app, place)];
    await aBlock(app, alice, bob);
    await aMute(app, alice, dave);
    await pause(5);
    const since = new Date().toISOString();
    await pause(5);
    const [byAlice, byBob, byCarol, byDave] = [await aPost(app, alice), await aPost(app, bob), await aPost(app, carol), await aPost(app, dave)];

    const aliceSync = await bothWays(alice, ['GET', `/api/realtime/sync/?since=${encodeURIComponent(since)}`], ['realtime.sync', { since }]);
    expect(aliceSync.status).toBe(200);
    expect(ids(aliceSync.body.posts)).toEqual([byAlice.id, byCarol.id]);
    const bobSync = await bothWays(bob, ['GET', `/api/realtime/sync/?since=${encodeURIComponent(since)}`], ['realtime.sync', { since }]);
    expect(ids(bobSync.body.posts)).toEqual([byBob.id, byCarol.id, byDave.id]);
    // A mute is one way: dave still catches up on alice's posts.
    const daveSync = await app.rest('GET', '/api/realtime/sync/', { token: dave.token, query: { since } });
    expect(ids(daveSync.body.posts)).toEqual([byAlice.id, byBob.id, byCarol.id, byDave.id]);
  });
});
