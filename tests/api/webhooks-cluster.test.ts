import { startCluster, CLUSTER_START_TIMEOUT_MS, type TestCluster } from '../helpers/cluster.js';
import { aReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { aShopWithProduct, aShopper } from '../builders/stores.js';

/**
 * Two nodes drain one outbox (DESIGN.md sections 4 and 12): orders placed on either node reach the receiver once
 * each, whichever node's worker claims them (each polls every 20 ms here, so both compete for every row).
 */
let cluster: TestCluster;
let receiver: Receiver;
beforeAll(async () => {
  cluster = await startCluster({ WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: 'true', OUTBOX_POLL_MS: '20', RATE_LIMITS: 'off' });
  receiver = await aReceiver();
}, CLUSTER_START_TIMEOUT_MS);
afterAll(async () => {
  await receiver.close();
  await cluster.stop();
});

test('when orders are placed on two nodes sharing one outbox, then each order.created is delivered exactly once, verified', async () => {
  const { a, b } = cluster;
  const { seller, store, product } = await aShopWithProduct(a, { stock: 100 });
  const created = await a.rest('POST', '/api/webhooks/', { token: seller.token, body: { url: receiver.url, events: ['order.created'], store_id: store.id } });
  expect(created.status).toBe(201);
  receiver.secrets.push(created.body.secret);
  const buyer = await aShopper(a);
  const orderIds: string[] = [];
  for (let i = 0; i < 20; i++) {
    const node = i % 2 ? b : a;
    const res = await node.rest('POST', '/api/stores/orders/', { token: buyer.token, body: { product: product.id, quantity: 1 } });
    expect(res.status).toBe(201);
    orderIds.push(res.body.id);
  }
  await receiver.waitFor(20);
  // Time for a duplicate to show up, were two nodes to send one row.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(receiver.received.map((r) => r.body.data.id).sort()).toEqual([...orderIds].sort());
  expect(new Set(receiver.received.map((r) => r.id)).size).toBe(20);
  expect(receiver.received.every((r) => r.verifiedBy === 0)).toBe(true);
});
