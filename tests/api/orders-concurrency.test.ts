import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aShopWithProduct, aShopper, anOrder } from '../builders/stores.js';
import type { TestUser } from '../builders/users.js';

/**
 * Orders and cancellations racing on one product. The per-user rate limits and the pending-units limit are
 * lifted (their own tests are in orders.test.ts), so that only the stock arithmetic is under test.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'off', ORDER_MAX_PENDING_UNITS: '1000' });
});
afterAll(async () => {
  await app.stop();
});

type Answer = { status: number; body: any };
const stockOf = async (productId: string): Promise<number> => (await app.rest('GET', `/api/stores/products/${productId}/`)).body.stock;

/** Even calls over REST, odd ones over the socket: both transports take part in every race. */
async function placeOrder(i: number, buyer: TestUser, product: string, quantity: number): Promise<Answer> {
  if (i % 2) return app.emit('orders.create', { product, quantity }, { token: buyer.token });
  const { status, body } = await app.rest('POST', '/api/stores/orders/', { token: buyer.token, body: { product, quantity } });
  return { status, body };
}
async function setStatus(i: number, user: TestUser, orderId: string, status: string): Promise<Answer> {
  if (i % 2) return app.emit('orders.update', { order_id: orderId, status }, { token: user.token });
  const res = await app.rest('PATCH', `/api/stores/orders/${orderId}/`, { token: user.token, body: { status } });
  return { status: res.status, body: res.body };
}

test('when 30 orders and 20 cancellations of one product race (several buyers, both transports), then the stock is exactly the initial stock less the units of the orders not cancelled', async () => {
  const initial = 80;
  const { seller, product } = await aShopWithProduct(app, { stock: initial, price: '1.00' });
  const buyers = await Promise.all(Array.from({ length: 5 }, () => aShopper(app)));
  // 20 orders already there (40 units), the first 5 already in processing.
  const existing = await Promise.all(Array.from({ length: 20 }, (_, i) => anOrder(app, buyers[i % 5], product.id, (i % 3) + 1)));
  for (const o of existing.slice(0, 5)) expect(await setStatus(0, seller, o.id, 'processing')).toMatchObject({ status: 200 });
  const before = await stockOf(product.id);
  expect(before).toBe(initial - existing.reduce((sum, o) => sum + o.quantity, 0));

  // 30 new orders (75 units: more than is left, so some are refused) and the first 10 orders each cancelled twice
  // at the same moment, over the same transport so that the two really meet: a pending one by its buyer and the
  // seller, a processing one by the seller from two devices. Each must return its units once.
  const targets = existing.slice(0, 10);
  const newOrders = Array.from({ length: 30 }, (_, i) => () => placeOrder(i, buyers[i % 5], product.id, (i % 4) + 1));
  const cancellations = targets.flatMap((o, i) => {
    const first = i < 5 ? seller : buyers[i % 5];
    return [() => setStatus(i, first, o.id, 'cancelled'), () => setStatus(i, seller, o.id, 'cancelled')];
  });
  const calls = [...newOrders, ...cancellations];
  expect(calls).toHaveLength(50);
  const answers = await Promise.all(calls.map((call) => call()));

  const orderAnswers = answers.slice(0, 30);
  const cancelAnswers = answers.slice(30);
  for (const a of orderAnswers) {
    if (a.status !== 201) expect(a).toEqual({ status: 400, body: { quantity: [expect.stringMatching(/^Only \d+ left in stock\.$/)] } });
  }
  // The second of each pair is the same status again: 200 as well, and it changes nothing.
  for (const a of cancelAnswers) expect(a).toMatchObject({ status: 200, body: { status: 'cancelled' } });
  const placed = orderAnswers.filter((a) => a.status === 201).length;
  expect(placed).toBeGreaterThan(0);
  expect(placed).toBeLessThan(30);

  const inbox = await app.rest('GET', '/api/stores/orders/', { token: seller.token, query: { role: 'seller', page_size: 100 } });
  expect(inbox.body.count).toBe(20 + placed);
  const all: Array<{ id: string; quantity: number; status: string }> = inbox.body.results;
  expect(all.filter((o) => o.status === 'cancelled').map((o) => o.id).sort()).toEqual(targets.map((o) => o.id).sort());
  const held = all.filter((o) => o.status !== 'cancelled').reduce((sum, o) => sum + o.quantity, 0);
  expect(await stockOf(product.id)).toBe(initial - held);
});

test('when the pending-units limit is lifted, then one order may hold 99 units and never 100', async () => {
  const { product } = await aShopWithProduct(app, { stock: 300 });
  const buyer = await aShopper(app);
  expect(await placeOrder(0, buyer, product.id, 99)).toMatchObject({ status: 201, body: { quantity: 99 } });
  expect(await placeOrder(1, buyer, product.id, 99)).toMatchObject({ status: 201, body: { quantity: 99 } });
  expect(await placeOrder(0, buyer, product.id, 100)).toEqual({ status: 400, body: { quantity: ['Ensure this value is less than or equal to 99.'] } });
  expect(await placeOrder(1, buyer, product.id, 100)).toEqual({ status: 400, body: { quantity: ['Ensure this value is less than or equal to 99.'] } });
  expect(await stockOf(product.id)).toBe(300 - 198);
});
