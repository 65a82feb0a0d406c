import { nextEvent, noEvent, startTestApp, type TestApp } from '../helpers/test-app.js';
import { aProduct, aShopWithProduct, aShopper, anOrder } from '../builders/stores.js';
import type { TestUser } from '../builders/users.js';
import { BUYER_CANCELS_ONLY_PENDING, CANCELLED_IS_FINAL, notCancellable } from '../../src/modules/stores/order-transitions.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const order = (buyer: TestUser, product: string, quantity: unknown) => app.rest('POST', '/api/stores/orders/', { token: buyer.token, body: { product, quantity } });
const stockOf = async (productId: string): Promise<number> => (await app.rest('GET', `/api/stores/products/${productId}/`)).body.stock;

/** Both transports answer the same `{status, body}` (DESIGN.md section 4); the tests below run over each. */
type Transport = 'REST' | 'socket';
const TRANSPORTS: Transport[] = ['REST', 'socket'];
async function orderVia(via: Transport, buyer: TestUser, product: string, quantity: unknown): Promise<{ status: number; body: any }> {
  if (via === 'socket') return app.emit('orders.create', { product, quantity }, { token: buyer.token });
  const { status, body } = await order(buyer, product, quantity);
  return { status, body };
}
async function setStatus(via: Transport, user: TestUser, orderId: string, status: string): Promise<{ status: number; body: any }> {
  if (via === 'socket') return app.emit('orders.update', { order_id: orderId, status }, { token: user.token });
  const res = await app.rest('PATCH', `/api/stores/orders/${orderId}/`, { token: user.token, body: { status } });
  return { status: res.status, body: res.body };
}

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

describe('order sizes', () => {
  test.each(TRANSPORTS)('over %s, when the quantity is 100 or 0, then a 400 field error on quantity and nothing is taken', async (via) => {
    const { product } = await aShopWithProduct(app, { stock: 500 });
    const buyer = await aShopper(app);
    expect(await orderVia(via, buyer, product.id, 100)).toEqual({ status: 400, body: { quantity: ['Ensure this value is less than or equal to 99.'] } });
    expect(await orderVia(via, buyer, product.id, 0)).toEqual({ status: 400, body: { quantity: ['Ensure this value is greater than or equal to 1.'] } });
    expect(await orderVia(via, buyer, product.id, 2 ** 31 - 1)).toEqual({ status: 400, body: { quantity: ['Ensure this value is less than or equal to 99.'] } });
    expect(await stockOf(product.id)).toBe(500);
  });

  test.each(TRANSPORTS)('over %s, when a buyer\'s pending orders would hold more than 20 units of one product, then 400 on quantity, until some are cancelled or processed', async (via) => {
    const { seller, product } = await aShopWithProduct(app, { stock: 500 });
    const other = (await aShopWithProduct(app, { stock: 500 })).product;
    const buyer = await aShopper(app);
    const first = await orderVia(via, buyer, product.id, 15);
    expect(first).toMatchObject({ status: 201, body: { quantity: 15 } });
    expect(await orderVia(via, buyer, product.id, 6)).toEqual({
      status: 400,
      body: { quantity: ['Your pending orders may hold at most 20 units of one product: 15 already wait, so at most 5 more.'] },
    });
    // 21 units in one order: the order size allows it, the pending limit does not.
    expect(await orderVia(via, await aShopper(app), product.id, 21)).toEqual({ status: 400, body: { quantity: ['Your pending orders may hold at most 20 units of one product.'] } });
    expect(await orderVia(via, buyer, product.id, 5)).toMatchObject({ status: 201, body: { quantity: 5 } });
    expect(await orderVia(via, buyer, product.id, 1)).toMatchObject({ status: 400 });
    // Another product, and another buyer of this one, are counted apart.
    expect(await orderVia(via, buyer, other.id, 20)).toMatchObject({ status: 201 });
    expect(await orderVia(via, await aShopper(app), product.id, 20)).toMatchObject({ status: 201 });
    // Cancelled units no longer wait, nor do units the seller has taken into processing.
    expect(await setStatus(via, buyer, first.body.id, 'cancelled')).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    const again = await orderVia(via, buyer, product.id, 15);
    expect(again).toMatchObject({ status: 201 });
    expect(await setStatus(via, seller, again.body.id, 'processing')).toMatchObject({ status: 200 });
    expect(await orderVia(via, buyer, product.id, 15)).toMatchObject({ status: 201 });
    expect(await stockOf(product.id)).toBe(500 - 5 - 20 - 15 - 15);
  });

  test('when one buyer sends ten orders of 3 units at once (REST and socket), then exactly six pass the 20-unit limit', async () => {
    const { product } = await aShopWithProduct(app, { stock: 500 });
    const buyer = await aShopper(app);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => orderVia(TRANSPORTS[i % 2], buyer, product.id, 3)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(6);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect(refused).toEqual({ status: 400, body: { quantity: ['Your pending orders may hold at most 20 units of one product: 18 already wait, so at most 2 more.'] } });
    }
    expect(await stockOf(product.id)).toBe(500 - 18);
  });
});

describe('cancelling orders', () => {
  test.each(TRANSPORTS)('over %s, when the buyer cancels a pending order, then its units return to stock and the seller hears order:updated and a general notification', async (via) => {
    const { seller, product } = await aShopWithProduct(app, { stock: 5 });
    const buyer = await aShopper(app);
    const placed = await anOrder(app, buyer, product.id, 2);
    expect(await stockOf(product.id)).toBe(3);

    const sellerPhone = await app.socket(seller.token);
    const updated = nextEvent(sellerPhone, 'order:updated');
    const notified = nextEvent(sellerPhone, 'notification:created');
    const cancelled = await setStatus(via, buyer, placed.id, 'cancelled');
    expect(cancelled).toMatchObject({ status: 200, body: { id: placed.id, status: 'cancelled', quantity: 2 } });
    expect(await updated).toEqual(cancelled.body);
    expect(await notified).toMatchObject({
      notification_type: 'general',
      target_type: 'Order',
      target_id: placed.id,
      user: seller.id,
      actor: { username: buyer.username },
      message: `${buyer.username} cancelled the order of 2 × ${product.name}.`,
    });
    expect(await stockOf(product.id)).toBe(5);
    const inbox = await app.rest('GET', '/api/stores/orders/', { token: seller.token, query: { role: 'seller' } });
    expect(inbox.body.results).toEqual([cancelled.body]);
  });

  test.each(TRANSPORTS)('over %s, when the buyer cancels an order the seller is processing, then 400 on status and nothing changes', async (via) => {
    const { seller, product } = await aShopWithProduct(app, { stock: 5 });
    const buyer = await aShopper(app);
    const placed = await anOrder(app, buyer, product.id, 2);
    expect(await setStatus(via, seller, placed.id, 'processing')).toMatchObject({ status: 200 });
    expect(await setStatus(via, buyer, placed.id, 'cancelled')).toEqual({ status: 400, body: { status: [BUYER_CANCELS_ONLY_PENDING] } });
    expect((await app.rest('GET', '/api/stores/orders/', { token: buyer.token })).body.results).toMatchObject([{ id: placed.id, status: 'processing' }]);
    expect(await stockOf(product.id)).toBe(3);
  });

  test.each(TRANSPORTS)('over %s, when the seller cancels a processing order, then its units return and the buyer hears order:updated and is notified; a shipped one cannot be cancelled', async (via) => {
    const { seller, product } = await aShopWithProduct(app, { stock: 10 });
    const buyer = await aShopper(app);
    const placed = await anOrder(app, buyer, product.id, 3);
    const shippedLater = await anOrder(app, buyer, product.id, 4);
    expect(await setStatus(via, seller, placed.id, 'processing')).toMatchObject({ status: 200 });

    const buyerPhone = await app.socket(buyer.token);
    const updated = nextEvent(buyerPhone, 'order:updated');
    const notified = nextEvent(buyerPhone, 'notification:created');
    const cancelled = await setStatus(via, seller, placed.id, 'cancelled');
    expect(cancelled).toMatchObject({ status: 200, body: { id: placed.id, status: 'cancelled' } });
    expect(await updated).toEqual(cancelled.body);
    expect(await notified).toMatchObject({ target_type: 'Order', target_id: placed.id, user: buyer.id, actor: { username: seller.username }, message: `Your order of ${product.name} is now cancelled.` });
    expect(await stockOf(product.id)).toBe(10 - 4);

    expect(await setStatus(via, seller, shippedLater.id, 'shipped')).toMatchObject({ status: 200 });
    expect(await setStatus(via, seller, shippedLater.id, 'cancelled')).toEqual({ status: 400, body: { status: [notCancellable('shipped')] } });
    expect(await setStatus(via, buyer, shippedLater.id, 'cancelled')).toEqual({ status: 400, body: { status: [BUYER_CANCELS_ONLY_PENDING] } });
    expect(await stockOf(product.id)).toBe(10 - 4);
  });

  test.each(TRANSPORTS)('over %s, when an order is cancelled, then nobody can change it any more and cancelling again returns nothing twice', async (via) => {
    const { seller, product } = await aShopWithProduct(app, { stock: 5 });
    const buyer = await aShopper(app);
    const stranger = await aShopper(app);
    const placed = await anOrder(app, buyer, product.id, 2);
    const cancelled = await setStatus(via, buyer, placed.id, 'cancelled');
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });

    for (const status of ['pending', 'processing', 'shipped', 'delivered']) {
      expect(await setStatus(via, seller, placed.id, status)).toEqual({ status: 400, body: { status: [CANCELLED_IS_FINAL] } });
      expect(await setStatus(via, buyer, placed.id, status)).toEqual({ status: 403, body: { detail: 'You do not have permission to perform this action.' } });
    }
    expect(await setStatus(via, stranger, placed.id, 'cancelled')).toEqual({ status: 404, body: { detail: 'Not found.' } });
    // A retried cancellation is the same status again: 200, unchanged, nobody told, no units returned twice.
    const sellerPhone = await app.socket(seller.token);
    const quiet = noEvent(sellerPhone, 'order:updated', 600);
    for (const party of [buyer, seller]) expect(await setStatus(via, party, placed.id, 'cancelled')).toEqual({ status: 200, body: cancelled.body });
    await quiet;
    expect(await stockOf(product.id)).toBe(5);
  });
});
