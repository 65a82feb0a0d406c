import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aComment, aNeighbourhood, aPost, aResidentOf } from '../builders/posts.js';
import { PNG_1X1 } from '../helpers/images.js';

/**
 * Every operation of posts and comments answers the same status and body over REST and over the socket.
 * Toggles change state, so each transport acts on its own twin object (same counts before), and the answers
 * are compared; reads are compared on the same state.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

describe('both transports', () => {
  test('when the toggles, replies, deletes and compatibility writes run over REST and the socket, then status and body match', async () => {
    const place = await aNeighbourhood(app);
    const bob = await aResidentOf(app, place);
    const [restPost, socketPost] = [await aPost(app, place.founder), await aPost(app, place.founder)];
    const [restComment, socketComment] = [await aComment(app, place.founder, restPost.id), await aComment(app, place.founder, socketPost.id)];

    const pairs: Array<[string, string, string, (post: any, comment: any) => Record<string, unknown>]> = [
      ['posts.bookmark', 'POST', '/api/feed/posts/{post_id}/bookmark/', (p) => ({ post_id: p.id })],
      // The contract's compatibility path is an operation too: the same toggle as posts.like.
      ['posts.like_simple', 'POST', '/api/posts/{post_id}/like/', (p) => ({ post_id: p.id })],
      ['comments.like', 'POST', '/api/posts/comments/{comment_id}/like/', (_p, c) => ({ comment_id: c.id })],
      ['comments.bookmark', 'POST', '/api/posts/comments/{comment_id}/bookmark/', (_p, c) => ({ comment_id: c.id })],
    ];
    for (const [op, method, path, input] of pairs) {
      const restInput = input(restPost, restComment);
      const url = path.replace(/\{(\w+)\}/g, (_m, k) => String(restInput[k]));
      const rest = await app.rest(method, url, { token: bob.token });
      const socket = await app.emit(op, input(socketPost, socketComment), { token: bob.token });
      expect({ op, ...socket }).toEqual({ op, status: rest.status, body: rest.body });
    }

    const restReply = await aComment(app, bob, restPost.id, { parent: restComment.id, content: 'same words' });
    const replies = await app.rest('GET', '/api/posts/comments/replies/', { query: { parent_id: restComment.id } });
    expect(await app.emit('comments.replies', { parent_id: restComment.id })).toEqual({ status: 200, body: replies.body });
    expect(replies.body.results[0].id).toBe(restReply.id);

    const deleteRest = await app.rest('DELETE', `/api/posts/comments/${restReply.id}/`, { token: bob.token });
    const socketReply = await aComment(app, bob, socketPost.id, { parent: socketComment.id });
    expect(await app.emit('comments.delete', { comment_id: socketReply.id }, { token: bob.token })).toEqual({ status: deleteRest.status, body: null });
    expect(deleteRest.status).toBe(204);

    const restSimple = await app.rest('POST', '/api/posts/', { token: bob.token, body: { content: 'x'.repeat(5001) } });
    expect(await app.emit('posts.create_simple', { content: 'x'.repeat(5001) }, { token: bob.token })).toEqual({ status: restSimple.status, body: restSimple.body });
    expect(restSimple.status).toBe(400);
    const restCompat = await app.rest('POST', `/api/posts/${restPost.id}/comment/`, { token: bob.token, body: {} });
    expect(await app.emit('comments.create_simple', { post_id: restPost.id }, { token: bob.token })).toEqual({ status: restCompat.status, body: restCompat.body });
    expect(restCompat).toMatchObject({ status: 400, body: { content: ['This field is required.'] } });
    const anonymous = await app.rest('POST', '/api/posts/comments/', { body: { post: restPost.id, content: 'hi' } });
    expect(await app.emit('comments.create', { post: restPost.id, content: 'hi' })).toEqual({ status: 401, body: anonymous.body });
  });
});

describe('oversized files', () => {
  test('when an image is over 10 MB, then 400 on media; an audio file over 25 MB is 413; no post is written', async () => {
    const { founder, locationId } = await aNeighbourhood(app);
    const bigImage = Buffer.concat([PNG_1X1, Buffer.alloc(10 * 1024 * 1024)]);
    const image = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'image').attach('media', bigImage, 'big.png');
    expect(image.status).toBe(400);
    expect(image.body).toEqual({ 'media.0': ['The image is larger than 10 MB.'] });
    const bigAudio = Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVE', 'latin1'), Buffer.alloc(25 * 1024 * 1024)]);
    const audio = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'audio').attach('audio_file', bigAudio, 'big.wav');
    expect(audio.status).toBe(413);
    expect((await app.rest('GET', '/api/posts/by-location/', { query: { location_id: locationId } })).body.total_posts).toBe(0);
  }, 30_000);
});
