import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aResident } from '../builders/locations.js';
import { aComment, aPost, aResidentOf } from '../builders/posts.js';
import { aCommunity, joinCommunity } from '../builders/communities.js';
import type { TestUser } from '../builders/users.js';
import { useLateCommitMargin } from '../../src/modules/sync/sync.service.js';

/**
 * Who may see a community's posts is one rule (src/modules/posts/post-visibility.ts): signed-in callers,
 * members or not; an anonymous caller is told to sign in (401). Every path that shows such a post answers the
 * same: the post, its comments and replies, its view counter, its room, its community's room and
 * realtime.sync, over REST and over the socket.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
  useLateCommitMargin(0);
});
afterAll(async () => {
  useLateCommitMargin();
  await app.stop();
});

const SHOWN = { status: 200, body: 'shown' };
const SIGN_IN = { status: 401, body: { detail: 'Authentication credentials were not provided.' } };

/** Every path that shows `postId` (of community `communityId`) to `viewer`, as `{status, body}` per path. */
async function everyPath(viewer: TestUser | null, ids: { postId: string; communityId: string; commentId: string; since: string }) {
  const token = viewer?.token;
  const socket = await app.socket(token);
  const answer = (res: { status: number; body: unknown }) => ({ status: res.status, body: res.status === 200 ? 'shown' : res.body });
  const syncShows = (res: { status: number; body: any }) =>
    res.status === 200 ? { status: 200, body: res.body.posts.some((p: { id: string }) => p.id === ids.postId) ? 'shown' : 'left out' } : answer(res);
  const out = {
    'REST posts.get': answer(await app.rest('GET', `/api/feed/posts/${ids.postId}/`, { token })),
    'socket posts.get': answer(await socket.timeout(5000).emitWithAck('posts.get', { post_id: ids.postId })),
    'REST comments.list': answer(await app.rest('GET', `/api/posts/posts/${ids.postId}/comments/`, { token })),
    'socket comments.list': answer(await socket.timeout(5000).emitWithAck('comments.list', { post_id: ids.postId })),
    'REST comments.replies': answer(await app.rest('GET', '/api/posts/comments/replies/', { token, query: { parent_id: ids.commentId } })),
    'socket comments.replies': answer(await socket.timeout(5000).emitWithAck('comments.replies', { parent_id: ids.commentId })),
    'REST posts.track_view': answer(await app.rest('POST', `/api/feed/posts/${ids.postId}/track_view/`, { token, body: {} })),
    'subscribe post': answer(await socket.timeout(5000).emitWithAck('subscribe', { channel: 'post', id: ids.postId })),
    'subscribe community': answer(await socket.timeout(5000).emitWithAck('subscribe', { channel: 'community', id: ids.communityId })),
    'REST realtime.sync': syncShows(await app.rest('GET', '/api/realtime/sync/', { token, query: { since: ids.since, communities: ids.communityId } })),
    'socket realtime.sync': syncShows(await socket.timeout(10000).emitWithAck('realtime.sync', { since: ids.since, communities: [ids.communityId] })),
  };
  socket.close();
  return out;
}

const everywhere = (answer: unknown, paths: string[]) => Object.fromEntries(paths.map((p) => [p, answer]));

describe("who may see a community's posts", () => {
  test('when an anonymous caller, a signed-in non-member and a member ask for one community post by every path, then each gets one answer everywhere: 401, shown, shown', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    const member = await aResident(app);
    await joinCommunity(app, member, club.id);
    const stranger = await aResident(app);
    const since = new Date(Date.now() - 1000).toISOString();
    const post = await aPost(app, member, { community_id: club.id });
    const comment = await aComment(app, owner, post.id);
    await aComment(app, member, post.id, { parent: comment.id });
    const ids = { postId: post.id, communityId: club.id, commentId: comment.id, since };

    const anonymous = await everyPath(null, ids);
    const paths = Object.keys(anonymous);
    expect(anonymous).toEqual(everywhere(SIGN_IN, paths));
    expect(await everyPath(stranger, ids)).toEqual(everywhere(SHOWN, paths));
    expect(await everyPath(member, ids)).toEqual(everywhere(SHOWN, paths));

    // The rule closes community posts only: an anonymous caller still reads and watches a neighbourhood post.
    const nearby = await aPost(app, await aResidentOf(app));
    expect((await app.rest('GET', `/api/feed/posts/${nearby.id}/`)).status).toBe(200);
    expect((await app.rest('GET', `/api/posts/posts/${nearby.id}/comments/`)).status).toBe(200);
    expect(await app.emit('subscribe', { channel: 'post', id: nearby.id })).toMatchObject({ status: 200 });
  });
});
