import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { openApiFit } from '../helpers/openapi-fit.js';
import { aShopWithProduct, aShopper, anOrder, livesAt } from '../builders/stores.js';
import { unique } from '../helpers/test-app.js';

/** The marketplace's documented response schemas are the shapes it really answers. */
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

test('when stores, products, discovery, orders and reviews are called, then each real body fits its documented schema', async () => {
  const country = unique('Docland');
  const { seller, store, product } = await aShopWithProduct(app);
  await livesAt(app, seller, { country, city: 'Schema City' });
  await app.rest('PATCH', `/api/stores/stores/${store.id}/sync_location/`, { token: seller.token });
  const buyer = await aShopper(app);
  const place = await livesAt(app, buyer, { country, city: 'Schema City', road: 'Spec Road' });
  const order = await anOrder(app, buyer, product.id);
  await app.rest('POST', '/api/stores/reviews/', { token: buyer.token, body: { product: product.id, rating: 3 } });

  expect(doc.components.schemas).toHaveProperty('Store');
  expectBodyFits(successSchema('/api/stores/stores/', 'get'), (await app.rest('GET', '/api/stores/stores/', { query: { slug: store.slug } })).body, 'stores.list');
  expectBodyFits(successSchema('/api/stores/stores/{store_id}/', 'get'), (await app.rest('GET', `/api/stores/stores/${store.id}/`)).body, 'stores.get');
  expectBodyFits(successSchema('/api/stores/products/', 'get'), (await app.rest('GET', '/api/stores/products/', { query: { store: store.id } })).body, 'products.list');
  const found = await app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: place } });
  expect(found.body.products).toHaveLength(1);
  expectBodyFits(successSchema('/api/stores/products/by-location/', 'get'), found.body, 'products.by_location');
  expectBodyFits(successSchema('/api/stores/orders/', 'get'), (await app.rest('GET', '/api/stores/orders/', { token: buyer.token })).body, 'orders.list');
  expectBodyFits(successSchema('/api/stores/orders/{order_id}/', 'patch'), (await app.rest('PATCH', `/api/stores/orders/${order.id}/`, { token: seller.token, body: { status: 'processing' } })).body, 'orders.update');
  expectBodyFits(successSchema('/api/stores/reviews/', 'get'), (await app.rest('GET', '/api/stores/reviews/', { query: { product: product.id } })).body, 'reviews.list');
});
