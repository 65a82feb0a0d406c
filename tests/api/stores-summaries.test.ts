import { startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aShopper, aStore, livesAt } from '../builders/stores.js';
import { PNG_1X1 } from '../helpers/images.js';
import { loadProductSummaries, loadStoreSummaries } from '../../src/modules/stores/summaries.js';

/** The short shapes the posts module embeds (shared products and stores): many ids, one query each. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

test('when summaries are loaded for several ids, then each known id maps to its short shape and unknown ids are absent', async () => {
  const seller = await aShopper(app);
  await livesAt(app, seller, { country: unique('Sumland'), city: 'Quay' });
  const store = await aStore(app, seller, { description: 'Bread and more' });
  const product = await app.http().post('/api/stores/products/').set('Authorization', `Bearer ${seller.token}`)
    .field('store_id', store.id).field('name', 'Rye').field('category', 'food_beverage').field('stock', '2').field('price', '3')
    .attach('uploaded_images', PNG_1X1, 'rye.png');
  const priceless = await app.rest('POST', '/api/stores/products/', { token: seller.token, body: { store_id: store.id, name: 'Cake', category: 'food_beverage', stock: 1, price_type: 'negotiable' } });
  const ghost = '00000000-0000-4000-8000-000000000000';

  const products = await loadProductSummaries([product.body.id, priceless.body.id.toUpperCase(), ghost], app.url);
  expect([...products.keys()].sort()).toEqual([product.body.id, priceless.body.id].sort());
  expect(products.get(product.body.id)).toEqual({
    id: product.body.id,
    name: 'Rye',
    price: '3.00',
    images: [{ id: product.body.images[0].id, url: product.body.images[0].image }],
    store: { id: store.id, name: store.name },
  });
  expect(products.get(priceless.body.id)).toMatchObject({ price: null, images: [] });

  const stores = await loadStoreSummaries([store.id, ghost]);
  expect([...stores.keys()]).toEqual([store.id]);
  expect(stores.get(store.id)).toEqual({
    id: store.id, name: store.name, slug: store.slug, description: 'Bread and more', logo: null,
    location_name: store.location.name, owner: { username: seller.username, display_name: seller.body.display_name },
  });
  expect((await loadStoreSummaries([])).size).toBe(0);
});
