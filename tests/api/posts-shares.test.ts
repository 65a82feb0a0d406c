import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aNeighbourhood, aPost } from '../builders/posts.js';
import { aProduct, aStore } from '../builders/stores.js';

/** Share posts embed the marketplace's summaries (one query per kind for a page of posts). */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off' });
});
afterAll(async () => {
  await app.stop();
});

describe('product_share and store_share', () => {
  test('when a product is shared, then shared_product has the contract shape, and reads and lists carry it', async () => {
    const place = await aNeighbourhood(app);
    const seller = place.founder;
    const store = await aStore(app, seller);
    const product = await aProduct(app, seller, store.id, { price: '7.00' });
    const post = await aPost(app, seller, { post_type: 'product_share', content: 'New in!', shared_product_id: product.id });
    expect(post.shared_product).toEqual({ id: product.id, name: product.name, price: '7.00', images: [], store: { id: store.id, name: store.name } });
    expect(post).toMatchObject({ shared_store: null, shared_community: null, location: place.locationId });
    expect((await app.emit('posts.get', { post_id: post.id })).body.shared_product).toEqual(post.shared_product);
    const listed = await app.rest('GET', '/api/posts/by-location/', { query: { location_id: place.locationId } });
    expect(listed.body.posts[0].shared_product).toEqual(post.shared_product);
  });

  test('when a store is shared, then shared_store carries its summary', async () => {
    const place = await aNeighbourhood(app);
    const store = await aStore(app, place.founder);
    const post = await aPost(app, place.founder, { post_type: 'store_share', shared_store_id: store.id });
    expect(post.shared_store).toMatchObject({ id: store.id, name: store.name, slug: store.slug, description: store.description, logo: null, owner: { username: place.founder.username } });
    expect(post.shared_product).toBeNull();
  });

  test('when the shared product or store does not exist, then a field error and no post', async () => {
    const place = await aNeighbourhood(app);
    const product = await app.rest('POST', '/api/feed/posts/', { token: place.founder.token, body: { post_type: 'product_share', shared_product_id: crypto.randomUUID() } });
    expect(product).toMatchObject({ status: 400, body: { shared_product_id: ['Product not found.'] } });
    const store = await app.emit('posts.create', { post_type: 'store_share', shared_store_id: crypto.randomUUID() }, { token: place.founder.token });
    expect(store).toEqual({ status: 400, body: { shared_store_id: ['Store not found.'] } });
    expect((await app.rest('GET', '/api/posts/by-location/', { query: { location_id: place.locationId } })).body.total_posts).toBe(0);
  });

  test('when a shared product is deleted, then the post stays and shares nothing', async () => {
    const place = await aNeighbourhood(app);
    const store = await aStore(app, place.founder);
    const product = await aProduct(app, place.founder, store.id);
    const post = await aPost(app, place.founder, { post_type: 'product_share', shared_product_id: product.id });
    expect((await app.rest('DELETE', `/api/stores/products/${product.id}/`, { token: place.founder.token })).status).toBe(204);
    expect((await app.rest('GET', `/api/feed/posts/${post.id}/`)).body).toMatchObject({ id: post.id, post_type: 'product_share', shared_product: null });
  });
});
