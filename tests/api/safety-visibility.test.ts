import { startTestApp, type TestApp } from '../helpers/test-app.js';
import type { TestUser } from '../builders/users.js';
import { aCity, aFeedPage, aResidentAt } from '../builders/feeds.js';
import { aComment, aPost } from '../builders/posts.js';
import { aBlock, aMute } from '../builders/safety.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const NEIGHBOURHOOD = '/api/feed/hybrid/neighbourhood/';
const ids = (items: Array<{ id: string }>) => items.map((i) => i.id);

/** Three neighbours of one place, each with a post; `carol` blocked and muted nobody. */
async function aStreet() {
  const city = aCity();
  const alice = await aResidentAt(app, city);
  const bob = await aResidentAt(app, city);
  const carol = await aResidentAt(app, city);
  const [byAlice, byBob, byCarol] = [await aPost(app, alice), await aPost(app, bob), await aPost(app, carol)];
  return { alice, bob, carol, byAlice, byBob, byCarol };
}

const feedIds = async (user: TestUser) => ids((await aFeedPage(app, user, NEIGHBOURHOOD)).items);
const locationPostIds = async (user: TestUser & { locationId: string }) =>
  ids((await app.rest('GET', '/api/posts/by-location/', { token: user.token, query: { location_id: user.locationId } })).body.posts);
const commentAuthors = async (user: TestUser, postId: string) =>
  (await app.rest('GET', `/api/posts/posts/${postId}/comments/`, { token: user.token })).body.results.map((c: { user: { id: string } }) => c.user.id);
const replyAuthors = async (user: TestUser, parentId: string) =>
  (await app.rest('GET', '/api/posts/comments/replies/', { token: user.token, query: { parent_id: parentId } })).body.results.map((c: { user: { id: string } }) => c.user.id);
const searchIds = async (user: TestUser, query: string) => ids((await app.rest('GET', '/api/users/search/', { token: user.token, query: { query } })).body);
const nearbyIds = async (user: TestUser) => ids((await app.rest('GET', '/api/users/nearby-users/', { token: user.token, query: { page_size: 50 } })).body.results);

describe('a block: each one\'s posts, comments and account do not exist for the other', () => {
  test('when alice blocked bob, then a read by id of the other\'s post is 404 both ways over both transports; carol reads both', async () => {
    const { alice, bob, carol, byAlice, byBob } = await aStreet();
    await aBlock(app, alice, bob);
    for (const [reader, post] of [[alice, byBob], [bob, byAlice]] as const) {
      expect(await app.rest('GET', `/api/feed/posts/${post.id}/`, { token: reader.token })).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
      expect(await app.emit('posts.get', { post_id: post.id }, { token: reader.token })).toEqual({ status: 404, body: { detail: 'Not found.' } });
    }
    expect((await app.rest('GET', `/api/feed/posts/${byBob.id}/`, { token: carol.token })).status).toBe(200);
  });

  test('when alice blocked bob, then the other\'s post has no comments, no room and no view for either of them (the one post rule)', async () => {
    const { alice, bob, carol, byAlice, byBob } = await aStreet();
    await aBlock(app, alice, bob);
    for (const [reader, post] of [[alice, byBob], [bob, byAlice]] as const) {
      expect((await app.rest('GET', `/api/posts/posts/${post.id}/comments/`, { token: reader.token })).status).toBe(404);
      expect((await app.rest('POST', `/api/feed/posts/${post.id}/track_view/`, { token: reader.token })).status).toBe(404);
      const socket = await app.socket(reader.token);
      expect(await socket.timeout(5000).emitWithAck('subscribe', { channel: 'post', id: post.id })).toEqual({ status: 404, body: { detail: 'Not found.' } });
    }
    expect((await app.rest('GET', `/api/posts/posts/${byBob.id}/comments/`, { token: carol.token })).status).toBe(200);
  });

  test('when alice blocked bob, then each one\'s posts leave the other\'s feed and post lists, and come back after unblocking', async () => {
    const { alice, bob, carol, byAlice, byBob, byCarol } = await aStreet();
    await app.rest('POST', `/api/feed/posts/${byBob.id}/like/`, { token: alice.token });
    await aBlock(app, alice, bob);
    expect(await feedIds(alice)).toEqual(expect.arrayContaining([byAlice.id, byCarol.id]));
    expect(await feedIds(alice)).not.toContain(byBob.id);
    expect(await feedIds(bob)).not.toContain(byAlice.id);
    expect(await feedIds(carol)).toEqual(expect.arrayContaining([byAlice.id, byBob.id]));
    expect(await locationPostIds(alice)).not.toContain(byBob.id);
    expect(await locationPostIds(bob)).not.toContain(byAlice.id);
    const liked = await app.rest('GET', '/api/feed/posts/liked/', { token: alice.token });
    expect(liked.body).toMatchObject({ count: 0, results: [] });

    await app.rest('DELETE', `/api/safety/blocks/${bob.id}/`, { token: alice.token });
    expect(await feedIds(alice)).toContain(byBob.id);
    expect((await app.rest('GET', '/api/feed/posts/liked/', { token: alice.token })).body.count).toBe(1);
  });

  test('when alice blocked bob, then each one\'s comments and replies leave the other\'s comment lists', async () => {
    const { alice, bob, carol, byCarol } = await aStreet();
    const carolsComment = await aComment(app, carol, byCarol.id);
    for (const author of [alice, bob]) {
      await aComment(app, author, byCarol.id);
      await aComment(app, author, byCarol.id, { parent: carolsComment.id });
    }
    await aBlock(app, alice, bob);
    expect(await commentAuthors(alice, byCarol.id)).not.toContain(bob.id);
    expect(await commentAuthors(bob, byCarol.id)).not.toContain(alice.id);
    expect(await commentAuthors(carol, byCarol.id)).toEqual(expect.arrayContaining([alice.id, bob.id]));
    expect(await replyAuthors(alice, carolsComment.id)).toEqual([alice.id]);
    expect(await replyAuthors(bob, carolsComment.id)).toEqual([bob.id]);
  });

  test('when alice blocked bob, then neither finds the other in user search or nearby users', async () => {
    const { alice, bob, carol } = await aStreet();
    await aBlock(app, alice, bob);
    expect(await searchIds(alice, bob.username)).toEqual([]);
    expect(await searchIds(bob, alice.username)).toEqual([]);
    expect(await searchIds(carol, bob.username)).toEqual([bob.id]);
    expect(await nearbyIds(alice)).toEqual(expect.arrayContaining([carol.id]));
    expect(await nearbyIds(alice)).not.toContain(bob.id);
    expect(await nearbyIds(bob)).not.toContain(alice.id);
  });
});

describe('a mute: one way, the muter\'s lists leave the muted person out', () => {
  test('when alice muted bob, then bob\'s posts and comments leave alice\'s feed and lists, a read by id still answers, and bob sees no change', async () => {
    const { alice, bob, carol, byAlice, byBob, byCarol } = await aStreet();
    await aComment(app, bob, byCarol.id);
    await aComment(app, alice, byCarol.id);
    await aMute(app, alice, bob);
    expect(await feedIds(alice)).not.toContain(byBob.id);
    expect(await locationPostIds(alice)).not.toContain(byBob.id);
    expect(await commentAuthors(alice, byCarol.id)).not.toContain(bob.id);
    expect((await app.rest('GET', `/api/feed/posts/${byBob.id}/`, { token: alice.token })).status).toBe(200);
    expect(await searchIds(alice, bob.username)).toEqual([bob.id]);
    expect(await nearbyIds(alice)).toContain(bob.id);

    expect(await feedIds(bob)).toEqual(expect.arrayContaining([byAlice.id, byBob.id]));
    expect(await commentAuthors(bob, byCarol.id)).toEqual(expect.arrayContaining([alice.id, bob.id]));
    expect(await feedIds(carol)).toContain(byBob.id);
  });
});
