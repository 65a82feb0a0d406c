import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { sql } from '../helpers/sql.js';
import { openApiFit } from '../helpers/openapi-fit.js';
import { aResident } from '../builders/locations.js';
import { aComment, aNeighbourhood, aPoll, aPost, aResidentOf } from '../builders/posts.js';
import { aCommunity, joinCommunity } from '../builders/communities.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { aProduct, anOrder, aShopWithProduct, aStore } from '../builders/stores.js';
import { aBlock, aMute, aReport } from '../builders/safety.js';
import { EXPORT_PAGE_SIZE } from '../../src/modules/leaving/export.service.js';

/**
 * `GET /api/users/profile/export/` (DESIGN.md section 9, Leaving; GDPR article 20): everything the caller wrote or
 * owns, as one JSON document, bounded per section and paged on (docs/modules/leaving.md), and nothing of anyone else
 * beyond what the caller is shown of them anyway.
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
const exportPath = '/api/users/profile/export/';
const ids = (items: Array<{ id: string }>) => items.map((i) => i.id);

describe('the export document', () => {
  test('when a person who wrote, sold, bought, joined and blocked exports, then every section holds its own items, over both transports, in the documented shape', async () => {
    const home = await aNeighbourhood(app);
    const me = await aResidentOf(app, home);
    const alice = await aResidentOf(app, home);
    const bob = await aResident(app);
    const carol = await aResident(app);

    const post = await aPost(app, me, { content: 'My own words' });
    const hers = await aPost(app, alice, { content: 'Alice wrote this' });
    const comment = await aComment(app, me, hers.id, { content: 'My comment' });
    const hersComment = await aComment(app, alice, hers.id, { content: 'Alice answers' });
    await app.rest('POST', `/api/feed/posts/${hers.id}/like/`, { token: me.token });
    await app.rest('POST', `/api/feed/posts/${hers.id}/bookmark/`, { token: me.token });
    await app.rest('POST', `/api/posts/comments/${hersComment.id}/like/`, { token: me.token });
    const poll = await aPoll(app, alice);
    await app.rest('POST', `/api/feed/posts/${poll.id}/vote_poll/`, { token: me.token, body: { option_id: poll.poll_data.options[1].id } });
    const conversation = await aConversation(app, me, alice);
    const message = await aMessage(app, me, conversation.id, 'See you at the market');
    await aMessage(app, alice, conversation.id, 'Alice private reply');
    const store = await aStore(app, me);
    const product = await aProduct(app, me, store.id);
    const sold = await anOrder(app, bob, product.id);
    const shop = await aShopWithProduct(app);
    const bought = await anOrder(app, me, shop.product.id);
    const review = await app.rest('POST', '/api/stores/reviews/', { token: me.token, body: { product: shop.product.id, rating: 5, comment: 'Lovely' } });
    const club = await aCommunity(app, me);
    const theirs = await aCommunity(app, alice);
    await joinCommunity(app, me, theirs.id);
    await aBlock(app, me, bob);
    await aMute(app, me, carol);
    const report = await aReport(app, me, 'post', hers.id, { reason: 'spam', details: 'Looks like an advert' });
    const suggestion = await app.rest('POST', `/api/locations/locations/${home.locationId}/suggest_name/`, { token: me.token, body: { name: 'Maple Corner' } });
    expect(suggestion.status).toBe(200);

    const res = await app.rest('GET', exportPath, { token: me.token });
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body).toMatchObject({ format: 'hyperlocal.account-export/1', next_cursors: {} });
    expect(body.reports).toEqual([{ ...report, details: 'Looks like an advert' }]);
    expect(body.user).toMatchObject({ id: me.id, username: me.username, email: me.email, referral_code: expect.any(String) });
    expect(ids(body.posts)).toEqual([post.id]);
    expect(body.posts[0]).toMatchObject({ content: 'My own words', user: { id: me.id } });
    expect(body.comments).toEqual([{ id: comment.id, post: hers.id, parent: null, content: 'My comment', created_at: comment.created_at, updated_at: comment.updated_at, edited_at: null }]);
    expect(body.messages).toEqual([{ id: message.id, conversation_id: conversation.id, content: 'See you at the market', created_at: message.created_at }]);
    expect(ids(body.stores)).toEqual([store.id]);
    expect(ids(body.products)).toEqual([product.id]);
    expect(ids(body.orders_as_buyer)).toEqual([bought.id]);
    expect(body.orders_as_seller).toEqual([expect.objectContaining({ id: sold.id, user: bob.id })]);
    expect(body.reviews).toEqual([expect.objectContaining({ id: review.body.id, product: shop.product.id, rating: 5 })]);
    expect(ids(body.communities_owned)).toEqual([club.id]);
    expect(body.community_memberships.map((m: any) => [m.community.id, m.role]).sort()).toEqual([[club.id, 'owner'], [theirs.id, 'member']].sort());
    expect(body.post_likes).toEqual([{ post: hers.id, created_at: expect.any(String) }]);
    expect(body.post_bookmarks).toEqual([{ post: hers.id, created_at: expect.any(String) }]);
    expect(body.comment_likes).toEqual([{ comment: hersComment.id, created_at: expect.any(String) }]);
    expect(body.comment_bookmarks).toEqual([]);
    expect(body.poll_votes).toEqual([{ post: poll.id, option: poll.poll_data.options[1].id, option_text: poll.poll_data.options[1].option_text, created_at: expect.any(String) }]);
    expect(body.location_name_suggestions).toEqual([expect.objectContaining({ location: home.locationId, suggested_name: 'Maple Corner' })]);
    expect(body.blocks).toEqual([{ user: { id: bob.id, username: bob.username, display_name: expect.any(String), profile_picture: null }, created_at: expect.any(String) }]);
    expect(body.mutes.map((m: any) => m.user.id)).toEqual([carol.id]);

    // Nothing of the others beyond what the caller is shown of them anyway: not what they wrote, not their addresses.
    const text = JSON.stringify(body);
    for (const theirsOnly of ['Alice wrote this', 'Alice answers', 'Alice private reply', alice.email, bob.email, carol.email, shop.seller.email]) {
      expect(text).not.toContain(theirsOnly);
    }

    const overSocket = await app.emit('users.profile_export', {}, { token: me.token });
    expect(overSocket.status).toBe(200);
    expect({ ...overSocket.body, exported_at: null }).toEqual({ ...body, exported_at: null });
    expectBodyFits(successSchema(exportPath, 'get'), body, 'users.profile_export');
  });

  test('when a section holds more than a page, then the document carries the first page and a cursor, and the section pages on to the end over both transports', async () => {
    const me = await aResidentOf(app);
    const total = EXPORT_PAGE_SIZE + 3;
    await sql(`INSERT INTO posts (user_id, post_type, content, location_id, created_at)
      SELECT u.id, 'text', 'bulk ' || g, u.location_id, now() - make_interval(secs => g) FROM users u, generate_series(1, $2::int) g WHERE u.id = $1`, [me.id, total]);

    const first = (await app.rest('GET', exportPath, { token: me.token })).body;
    expect(first.posts).toHaveLength(EXPORT_PAGE_SIZE);
    expect(Object.keys(first.next_cursors)).toEqual(['posts']);

    const pagePath = `${exportPath}posts/`;
    const next = await app.rest('GET', pagePath, { token: me.token, query: { cursor: first.next_cursors.posts } });
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ section: 'posts', next_cursor: null });
    expect(next.body.results).toHaveLength(3);
    const everything = [...ids(first.posts), ...ids(next.body.results)];
    expect(new Set(everything).size).toBe(total);
    const overSocket = await app.emit('users.profile_export_section', { section: 'posts', cursor: first.next_cursors.posts }, { token: me.token });
    expect(overSocket).toEqual({ status: 200, body: next.body });
    expectBodyFits(successSchema('/api/users/profile/export/{section}/', 'get'), next.body, 'users.profile_export_section');

    // A forged cursor whose date PostgreSQL cannot hold (year 0) is the caller's mistake: 400, never a 500.
    const yearZero = Buffer.from(JSON.stringify({ at: '0000-01-01T00:00:00Z', id: everything[0] })).toString('base64url');
    expect((await app.rest('GET', pagePath, { token: me.token, query: { cursor: yearZero } })).status).toBe(400);

    // From the start, a section alone is its first page.
    expect((await app.rest('GET', `${exportPath}comments/`, { token: me.token })).body).toEqual({ section: 'comments', results: [], next_cursor: null });
    expect(await app.rest('GET', pagePath, { token: me.token, query: { cursor: 'not-a-cursor' } })).toMatchObject({ status: 400, body: { cursor: ['Invalid cursor.'] } });
    expect((await app.rest('GET', `${exportPath}passwords/`, { token: me.token })).status).toBe(400);
  });
});

describe('limits', () => {
  test('when nobody is signed in, then 401; when a person exports again and again, then the sixth export within the hour is throttled', async () => {
    expect((await app.rest('GET', exportPath)).status).toBe(401);
    const me = await aResident(app);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await app.rest('GET', exportPath, { token: me.token })).status);
    expect(answers).toEqual([200, 200, 200, 200, 200, 429]);
    // Someone else is not held up by it.
    expect((await app.rest('GET', exportPath, { token: (await aResident(app)).token })).status).toBe(200);
  });
});
