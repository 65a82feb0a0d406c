import { nextEvent, startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aProduct, aShopper, aStore, livesAt } from '../builders/stores.js';
import { PNG_1X1 } from '../helpers/images.js';
import { sql } from 'drizzle-orm';
import { platform } from '../../src/platform/index.js';

/**
 * The marketplace as a new user meets it: a seller sets up shop, a buyer in a nearby but different place finds
 * the product through discovery by location, orders, the seller sees it arrive and ships it, the buyer hears
 * it and reviews. Reads are checked over both transports with identical bodies.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

describe('discovery by location', () => {
  test('when nothing sells on the buyer\'s road or neighbourhood, then the search widens to the city; and a place with nothing anywhere gets the empty answer', async () => {
    const country = unique('Marketland');
    const seller = await aShopper(app);
    await livesAt(app, seller, { country, state: 'North', city: 'Port Town', neighbourhood: 'Harbour', road: 'Quay Street' });
    const store = await aStore(app, seller);
    const lamp = await aProduct(app, seller, store.id, { name: 'Lamp', category: 'home_garden' });
    const radio = await aProduct(app, seller, store.id, { name: 'Radio', category: 'electronics' });

    // A store in a city of the same name in another state is not "this city".
    const elsewhere = await aShopper(app);
    await livesAt(app, elsewhere, { country, state: 'South', city: 'Port Town' });
    await aProduct(app, elsewhere, (await aStore(app, elsewhere)).id, { name: 'Far away lamp' });

    const buyer = await aShopper(app);
    const buyerPlace = await livesAt(app, buyer, { country, state: 'North', city: 'port town', neighbourhood: 'Hilltop', road: 'Elm Road' });
    const found = await app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: buyerPlace } });
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ count: 2, next: null, previous: null, location_name: 'port town', level: 'city' });
    expect(found.body.products.map((p: any) => p.id)).toEqual([radio.id, lamp.id]);
    expect(await app.emit('products.by_location', { location_id: buyerPlace })).toEqual({ status: 200, body: found.body });

    // The seller's own road is the narrowest level that has something.
    const sellerProfile = await app.rest('GET', '/api/users/profile/', { token: seller.token });
    const narrow = await app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: sellerProfile.body.location.id, page_size: 1 } });
    expect(narrow.body).toMatchObject({ count: 2, level: 'road', location_name: 'Quay Street', products: [{ id: radio.id }] });
    expect(narrow.body.next).toContain('page=2');

    // Filters: categories and search apply at every level.
    const filtered = await app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: buyerPlace, categories: 'home_garden,toys_games', search: 'lam' } });
    expect(filtered.body.products.map((p: any) => p.id)).toEqual([lamp.id]);
    expect(await app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: buyerPlace, categories: 'home_garden,guns' } })).toMatchObject({ status: 400, body: { 'categories.1': ['"guns" is not a valid choice.'] } });

    const loner = await aShopper(app);
    const empty = await livesAt(app, loner, { country: unique('Emptyland'), city: 'Nowhere' });
    const nothing = await app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: empty } });
    expect(nothing).toMatchObject({ status: 200, body: { location_name: null, products: [] } });
    expect(Object.keys(nothing.body).sort()).toEqual(['location_name', 'products']);
    expect(await app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: 'x' } })).toMatchObject({ status: 400, body: { location_id: ['Invalid UUID format.'] } });
    expect((await app.rest('GET', '/api/stores/products/by-location/')).body).toEqual({ location_id: ['This field is required.'] });
  });
});

test("when a store's location gains a level later (whichever code writes it), then discovery matches the store at that level", async () => {
  const country = unique('Fillland');
  const seller = await aShopper(app);
  const sellerPlace = await livesAt(app, seller, { country, city: 'Brook' });
  const product = await aProduct(app, seller, (await aStore(app, seller)).id);
  const buyer = await aShopper(app);
  const buyerPlace = await livesAt(app, buyer, { country, city: 'Brook', neighbourhood: 'Green End' });
  expect((await app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: buyerPlace } })).body).toMatchObject({ level: 'city' });
  // smart_update fills missing levels of a location this way; the store's copy follows (0008 trigger).
  await platform.db.execute(sql`UPDATE locations SET neighbourhood = 'GREEN END' WHERE id = ${sellerPlace}`);
  const found = await app.rest('GET', '/api/stores/products/by-location/', { query: { location_id: buyerPlace } });
  expect(found.body).toMatchObject({ level: 'neighbourhood', location_name: 'Green End', products: [{ id: product.id }] });
});

test('when a seller sets up shop and a nearby buyer finds, orders and reviews, then every step works over REST and the socket with the same bodies', async () => {
  const country = unique('Journeyland');
  const seller = await aShopper(app);
  await livesAt(app, seller, { country, city: 'Riverside', neighbourhood: 'Old Mill' });
  const storeRes = await app.http().post('/api/stores/stores/').set('Authorization', `Bearer ${seller.token}`).field('name', 'Mill Goods').field('slug', unique('mill')).attach('logo', PNG_1X1, 'logo.png');
  expect(storeRes.status).toBe(201);
  const productRes = await app.http().post('/api/stores/products/').set('Authorization', `Bearer ${seller.token}`)
    .field('store_id', storeRes.body.id).field('name', 'Sourdough').field('category', 'food_beverage').field('stock', '5').field('price', '4.5')
    .attach('uploaded_images', PNG_1X1, 'bread.png');
  expect(productRes.status).toBe(201);

  const buyer = await aShopper(app);
  const buyerPlace = await livesAt(app, buyer, { country, city: 'Riverside', neighbourhood: 'New Bridge' });
  const buyerSocket = await app.socket(buyer.token);
  const found = await buyerSocket.timeout(5000).emitWithAck('products.by_location', { location_id: buyerPlace });
  expect(found).toMatchObject({ status: 200, body: { level: 'city', products: [{ id: productRes.body.id, price: '4.50', images: [{ image: expect.stringContaining('/media/products/images/') }] }] } });

  // Ordered over the socket; the seller's socket hears it live.
  const sellerSocket = await app.socket(seller.token);
  const arrived = nextEvent(sellerSocket, 'order:created');
  const placed = await buyerSocket.timeout(5000).emitWithAck('orders.create', { product: productRes.body.id, quantity: 2 });
  expect(placed).toMatchObject({ status: 201, body: { total_price: '9.00', status: 'pending' } });
  expect(await arrived).toEqual(placed.body);
  const inboxRest = await app.rest('GET', '/api/stores/orders/', { token: seller.token, query: { role: 'seller' } });
  expect(await sellerSocket.timeout(5000).emitWithAck('orders.list', { role: 'seller' })).toEqual({ status: 200, body: inboxRest.body });

  // Shipped over the socket; the buyer hears the update and the notification.
  const updated = nextEvent(buyerSocket, 'order:updated');
  const notified = nextEvent(buyerSocket, 'notification:created');
  const shipped = await sellerSocket.timeout(5000).emitWithAck('orders.update', { order_id: placed.body.id, status: 'shipped' });
  expect(shipped).toMatchObject({ status: 200, body: { status: 'shipped' } });
  expect(await updated).toEqual(shipped.body);
  expect(await notified).toMatchObject({ target_type: 'Order', target_id: placed.body.id });

  // Reviews: one per user and product, rating 1..5, author-only changes.
  const reviewInput = { product: productRes.body.id, rating: 5, comment: 'Crusty.' };
  const review = await buyerSocket.timeout(5000).emitWithAck('reviews.create', reviewInput);
  expect(review).toMatchObject({ status: 201, body: { user: buyer.id, product: productRes.body.id, rating: 5, comment: 'Crusty.' } });
  expect(await app.rest('POST', '/api/stores/reviews/', { token: buyer.token, body: reviewInput })).toMatchObject({ status: 400, body: { non_field_errors: ['You have already reviewed this product.'] } });
  for (const rating of [0, 6, 4.5, 'great']) {
    const res = await app.rest('POST', '/api/stores/reviews/', { token: seller.token, body: { ...reviewInput, rating } });
    expect({ rating, status: res.status, hasError: Boolean(res.body.rating) }).toEqual({ rating, status: 400, hasError: true });
  }
  expect(await app.rest('POST', '/api/stores/reviews/', { token: seller.token, body: reviewInput })).toMatchObject({ status: 400, body: { detail: 'You cannot review your own product.' } });
  expect(await app.rest('PATCH', `/api/stores/reviews/${review.body.id}/`, { token: seller.token, body: { rating: 1 } })).toMatchObject({ status: 403 });
  const edited = await app.rest('PATCH', `/api/stores/reviews/${review.body.id}/`, { token: buyer.token, body: { rating: 4 } });
  expect(edited).toMatchObject({ status: 200, body: { rating: 4, comment: 'Crusty.' } });
  const reviewsRest = await app.rest('GET', '/api/stores/reviews/', { query: { product: productRes.body.id } });
  expect(reviewsRest.body).toMatchObject({ count: 1, results: [edited.body] });
  expect(await app.emit('reviews.list', { product: productRes.body.id })).toEqual({ status: 200, body: reviewsRest.body });
  expect(await app.rest('DELETE', `/api/stores/reviews/${review.body.id}/`, { token: seller.token })).toMatchObject({ status: 403 });
  expect((await app.rest('DELETE', `/api/stores/reviews/${review.body.id}/`, { token: buyer.token })).status).toBe(204);
  expect((await app.rest('GET', '/api/stores/reviews/', { query: { product: productRes.body.id } })).body.count).toBe(0);
});
