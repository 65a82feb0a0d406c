import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { openApiFit } from '../helpers/openapi-fit.js';
import { aComment, aNeighbourhood, aPoll, aPost, aWav } from '../builders/posts.js';
import { aProduct, aStore } from '../builders/stores.js';
import { aCommunity } from '../builders/communities.js';

/** The Post, Poll and Comment bodies the service answers are the ones its OpenAPI document describes. */
let app: TestApp;
let doc: any;
beforeAll(async () => {
  app = await startTestApp();
  doc = (await app.rest('GET', '/api/docs/openapi.json')).body;
});
afterAll(async () => {
  await app.stop();
});

const { resolve, successSchema, expectBodyFits } = openApiFit(() => doc);

describe('posts and comments in the OpenAPI document', () => {
  test('when posts of each kind, a vote, a comment and the lists are answered, then each body fits its documented schema', async () => {
    const place = await aNeighbourhood(app);
    const me = place.founder;
    expect(doc.paths['/api/feed/posts/'].post.responses[201].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Post' });
    // The multipart fields of the upload are named in the document.
    const form = doc.paths['/api/feed/posts/'].post.requestBody.content['multipart/form-data'].schema;
    expect(Object.keys(resolve(form).properties)).toEqual(expect.arrayContaining(['media', 'audio_file', 'post_type', 'poll_options']));

    const text = await aPost(app, me);
    const poll = await aPoll(app, me);
    const audio = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${me.token}`).field('post_type', 'audio').attach('audio_file', aWav(1), 'a.wav');
    const store = await aStore(app, me);
    const product = await aProduct(app, me, store.id);
    const club = await aCommunity(app, me);
    const shares = [
      await aPost(app, me, { post_type: 'product_share', shared_product_id: product.id }),
      await aPost(app, me, { post_type: 'store_share', shared_store_id: store.id }),
      await aPost(app, me, { post_type: 'community_share', shared_community_id: club.id }),
      await aPost(app, me, { community_id: club.id }),
    ];
    for (const body of [text, poll, audio.body, ...shares]) expectBodyFits(successSchema('/api/feed/posts/', 'post', 201), body, `posts.create ${body.post_type}`);
    const vote = await app.rest('POST', `/api/feed/posts/${poll.id}/vote_poll/`, { token: me.token, body: { option_id: poll.poll_data.options[0].id } });
    expectBodyFits(successSchema('/api/feed/posts/{post_id}/vote_poll/', 'post'), vote.body, 'posts.vote_poll');
    const like = await app.rest('POST', `/api/feed/posts/${text.id}/like/`, { token: me.token });
    expectBodyFits(successSchema('/api/feed/posts/{post_id}/like/', 'post'), like.body, 'posts.like');
    expect(doc.paths['/api/posts/{post_id}/like/'].post.operationId).toBe('posts.like_simple');
    const likeSimple = await app.rest('POST', `/api/posts/${text.id}/like/`, { token: me.token });
    expectBodyFits(successSchema('/api/posts/{post_id}/like/', 'post'), likeSimple.body, 'posts.like_simple');
    const view = await app.rest('POST', `/api/feed/posts/${text.id}/track_view/`, { token: me.token });
    expect(view.body.view_recorded).toBe(true);
    const comment = await aComment(app, me, text.id);
    expectBodyFits(successSchema('/api/posts/comments/', 'post', 201), comment, 'comments.create');
    const comments = await app.rest('GET', `/api/posts/posts/${text.id}/comments/`);
    expectBodyFits(successSchema('/api/posts/posts/{post_id}/comments/', 'get'), comments.body, 'comments.list');
    const liked = await app.rest('GET', '/api/feed/posts/liked/', { token: me.token });
    expectBodyFits(successSchema('/api/feed/posts/liked/', 'get'), liked.body, 'posts.liked');
    const popular = await app.rest('GET', '/api/feed/posts/popular_locations/');
    expectBodyFits(successSchema('/api/feed/posts/popular_locations/', 'get'), popular.body, 'posts.popular_locations');
    const analytics = await app.rest('GET', '/api/feed/posts/user_analytics/', { token: me.token });
    expectBodyFits(successSchema('/api/feed/posts/user_analytics/', 'get'), analytics.body, 'posts.user_analytics');
  });

  test('when posts.create is called past 30 a minute, then 429 with Retry-After', async () => {
    const place = await aNeighbourhood(app);
    let last = { status: 0, body: {} as any, headers: {} as Record<string, string> };
    for (let i = 0; i < 31 && last.status !== 429; i++) last = await app.rest('POST', '/api/feed/posts/', { token: place.founder.token, body: { post_type: 'text', content: `n${i}` } });
    expect(last.status).toBe(429);
    expect(last.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds?\.$/);
    expect(last.headers['retry-after']).toBeDefined();
  });
});
