import { nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aProduct, aShopWithProduct, aShopper, anOrder } from '../builders/stores.js';
import type { TestUser } from '../builders/users.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const order = (buyer: TestUser, product: string, quantity: unknown) => app.rest('POST', '/api/stores/orders/', { token: buyer.token, body: { product, quantity } });

describe('placing orders', () => {
  test('when 50 orders for one unit arrive at once for a product with stock 10, then exactly 10 succeed, the rest get the stock error, and stock ends at 0', async () => {
    const { seller, store, product } = await aShopWithProduct(app, { stock: 10, price: '3.25' });
    // Ten buyers, five orders each: the per-user order limit (30 a minute) is not what is tested here.
    const buyers = await Promise.all(Array.from({ length: 10 }, () => aShopper(app)));
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => order(buyers[i % 10], product.id, 1)));
    const ok = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(ok).toHaveLength(10);
    for (const a of ok) expect(a.body).toMatchObject({ status: 'pending', quantity: 1, total_price: '3.25', product: product.id, store: store.id });
    for (const a of refused) expect({ status: a.status, body: a.body }).toEqual({ status: 400, body: { quantity: ['Only 0 left in stock.'] } });
    expect((await app.rest('GET', `/api/stores/products/${product.id}/`)).body.stock).toBe(0);
    const inbox = await app.rest('GET', '/api/stores/orders/', { token: seller.token, query: { role: 'seller' } });
    expect(inbox.body.count).toBe(10);
  });

  test('when the quantity is more than the stock, then 400 {quantity: [Only N left in stock.]} and the stock is untouched', async () => {
    const { product } = await aShopWithProduct(app, { stock: 4, price: '2.10' });
    const buyer = await aShopper(app);
    expect(await order(buyer, product.id, 5)).toMatchObject({ status: 400, body: { quantity: ['Only 4 left in stock.'] } });
    const placed = await order(buyer, product.id, 3);
    expect(placed).toMatchObject({ status: 201, body: { total_price: '6.30', unit_price: '2.10', user: buyer.id } });
    expect((await app.rest('GET', `/api/stores/products/${product.id}/`)).body.stock).toBe(1);
  });

  test('when the input is bad or the buyer owns the store, then a clear 400 and nothing is taken', async () => {
    const { seller, store, product } = await aShopWithProduct(app, { stock: 4 });
    const buyer = await aShopper(app);
    expect(await order(buyer, product.id, 0)).toMatchObject({ status: 400, body: { quantity: ['Ensure this value is greater than or equal to 1.'] } });
    expect(await order(buyer, product.id, -2)).toMatchObject({ status: 400, body: { quantity: ['Ensure this value is greater than or equal to 1.'] } });
    expect(await order(buyer, product.id, 'lots')).toMatchObject({ status: 400, body: { quantity: ['A valid integer is required.'] } });
    expect(await order(buyer, 'abc', 1)).toMatchObject({ status: 400, body: { product: ['Invalid UUID format.'] } });
    const ghost = '00000000-0000-4000-8000-000000000000';
    expect(await order(buyer, ghost, 1)).toMatchObject({ status: 400, body: { product: [`Invalid pk "${ghost}" - object does not exist.`] } });
    expect(await order(seller, product.id, 1)).toMatchObject({ status: 400, body: { detail: 'You cannot order from your own store.' } });
    const priceless = await aProduct(app, seller, store.id, { price_type: 'negotiable', price: null });
    expect(await order(buyer, priceless.id, 1)).toMatchObject({ status: 400, body: { product: ['This product has no price yet: ask the seller.'] } });
    expect((await app.rest('GET', `/api/stores/products/${product.id}/`)).body.stock).toBe(4);
  });
});

describe('order status', () => {
  test('when the seller moves the status forward, then the buyer hears order:updated and a general notification live, and backwards is refused', async () => {
    const { seller, product } = await aShopWithProduct(app, { stock: 2 });
    const buyer = await aShopper(app);
    const sellerPhone = await app.socket(seller.token);
    const arrived = nextEvent(sellerPhone, 'order:created');
    const placed = await anOrder(app, buyer, product.id);
    expect(await arrived).toEqual(placed);

    const buyerPhone = await app.socket(buyer.token);
    const updated = nextEvent(buyerPhone, 'order:updated');
    const notified = nextEvent(buyerPhone, 'notification:created');
    const shipped = await app.rest('PATCH', `/api/stores/orders/${placed.id}/`, { token: seller.token, body: { status: 'shipped' } });
    expect(shipped).toMatchObject({ status: 200, body: { id: placed.id, status: 'shipped' } });
    expect(await updated).toEqual(shipped.body);
    expect(await notified).toMatchObject({ notification_type: 'general', target_type: 'Order', target_id: placed.id, user: buyer.id, actor: { username: seller.username }, message: `Your order of ${product.name} is now shipped.` });

    expect(await app.rest('PATCH', `/api/stores/orders/${placed.id}/`, { token: seller.token, body: { status: 'processing' } })).toMatchObject({
      status: 400,
      body: { status: ["An order's status only moves forward: pending → processing → shipped → delivered."] },
    });
    expect(await app.rest('PATCH', `/api/stores/orders/${placed.id}/`, { token: seller.token, body: { status: 'sold' } })).toMatchObject({ status: 400, body: { status: ['"sold" is not a valid choice.'] } });
    // The same status again changes nothing and tells nobody.
    const quiet = noEvent(buyerPhone, 'order:updated', 600);
    expect(await app.rest('PATCH', `/api/stores/orders/${placed.id}/`, { token: seller.token, body: { status: 'shipped' } })).toMatchObject({ status: 200, body: { status: 'shipped', updated_at: shipped.body.updated_at } });
    await quiet;
  });

  test('when the buyer changes the status it is 403, when a stranger does it is 404, and the order stays as it was', async () => {
    const { product } = await aShopWithProduct(app, { stock: 2 });
    const buyer = await aShopper(app);
    const stranger = await aShopper(app);
    const placed = await anOrder(app, buyer, product.id);
    expect(await app.rest('PATCH', `/api/stores/orders/${placed.id}/`, { token: buyer.token, body: { status: 'delivered' } })).toMatchObject({ status: 403, body: { detail: 'You do not have permission to perform this action.' } });
    expect(await app.emit('orders.update', { order_id: placed.id, status: 'delivered' }, { token: stranger.token })).toEqual({ status: 404, body: { detail: 'Not found.' } });
    const mine = await app.rest('GET', '/api/stores/orders/', { token: buyer.token });
    expect(mine.body).toMatchObject({ count: 1, results: [{ id: placed.id, status: 'pending' }] });
    expect((await app.rest('GET', '/api/stores/orders/', { token: stranger.token })).body.count).toBe(0);
    expect(await app.emit('orders.list', {}, { token: buyer.token })).toEqual({ status: 200, body: mine.body });
  });
});
