import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { aShopWithProduct, aShopper, aStore, anOrder } from '../builders/stores.js';
import { aUser, type TestUser } from '../builders/users.js';
import { adminEnv, loginAdmin } from '../builders/locations.js';
import { aReport } from '../builders/safety.js';
import { platform } from '../../src/platform/index.js';
import { outboxClock, outboxWorker } from '../../src/platform/outbox.js';
import { RETRY_DELAYS_MS, senderHooks } from '../../src/modules/webhooks/webhooks.outbox.js';
import { WEBHOOK_TIMEOUT_MS } from '../../src/modules/webhooks/sender.js';

/**
 * Webhooks (DESIGN.md section 12; docs/webhooks.md), end to end: operations over both transports, events written in
 * the store's or staff's transaction, delivered by the outbox to a real receiver on loopback that verifies every
 * request with the `standardwebhooks` library. WEBHOOK_ALLOW_PRIVATE_ENDPOINTS=true lets the loopback receiver in
 * (plain http); the outbound rules without it are tested in tests/unit/webhooks-outbound.test.ts.
 */
const admin = adminEnv();
let app: TestApp;
let receiver: Receiver;
const realNow = outboxClock.now;

beforeAll(async () => {
  app = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: 'true', ...admin });
});
beforeEach(async () => {
  receiver = await aReceiver();
});
afterEach(async () => {
  outboxClock.now = realNow;
  delete senderHooks.timeoutMs;
  await receiver.close();
});
afterAll(async () => {
  await app.stop();
});

async function aWebhook(owner: TestUser | { token: string }, body: Record<string, unknown>) {
  const res = await app.rest('POST', '/api/webhooks/', { token: owner.token, body: { url: receiver.url, ...body } });
  expect(res.status).toBe(201);
  receiver.secrets.push(res.body.secret);
  return res.body;
}

async function deliveries(owner: { token: string }, webhookId: string) {
  const res = await app.rest('GET', `/api/webhooks/${webhookId}/deliveries/`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.results as any[];
}

/** Drain what is due now (the app's own worker would, within a poll; this waits for it). */
const settle = () => outboxWorker!.settle();

describe('the operations', () => {
  test('create answers the secret once (whsec_ + 24 bytes); read, list, update and delete never show it; the same over the socket', async () => {
    const { seller, store } = await aShopWithProduct(app);
    const created = await aWebhook(seller, { events: ['order.created'], store_id: store.id, description: 'till' });
    expect(created).toMatchObject({ url: receiver.url, events: ['order.created'], store_id: store.id, description: 'till', is_active: true });
    expect(created.secret).toMatch(/^whsec_/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(24);

    const read = await app.rest('GET', `/api/webhooks/${created.id}/`, { token: seller.token });
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    const { secret: _secret, ...shown } = created;
    expect(read.body).toEqual(shown);
    expect(await app.emit('webhooks.read', { webhook_id: created.id }, { token: seller.token })).toEqual({ status: 200, body: read.body });

    const listed = await app.rest('GET', '/api/webhooks/', { token: seller.token });
    expect(listed.body.results).toEqual([shown]);

    const updated = await app.emit('webhooks.update', { webhook_id: created.id, events: ['order.created', 'order.cancelled'], is_active: false }, { token: seller.token });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ events: ['order.created', 'order.cancelled'], is_active: false });

    expect((await app.rest('DELETE', `/api/webhooks/${created.id}/`, { token: seller.token })).status).toBe(204);
    expect((await app.rest('GET', `/api/webhooks/${created.id}/`, { token: seller.token })).status).toBe(404);
  });

  test("anyone else's webhook is 404; another's store is 403; the service's events are staff's; a store's events only with a store; at most 10 per store; https only outside the test setting's http", async () => {
    const { seller, store } = await aShopWithProduct(app);
    const stranger = await aShopper(app);
    const hook = await aWebhook(seller, { events: ['order.created'], store_id: store.id });
    for (const [method, path] of [
      ['GET', `/api/webhooks/${hook.id}/`],
      ['PATCH', `/api/webhooks/${hook.id}/`],
      ['DELETE', `/api/webhooks/${hook.id}/`],
      ['POST', `/api/webhooks/${hook.id}/rotate-secret/`],
      ['POST', `/api/webhooks/${hook.id}/test/`],
      ['GET', `/api/webhooks/${hook.id}/deliveries/`],
    ]) {
      expect([method, path, (await app.rest(method, path, { token: stranger.token, body: method === 'PATCH' ? { description: 'x' } : undefined })).status]).toEqual([method, path, 404]);
    }
    const notTheirs = await app.rest('POST', '/api/webhooks/', { token: stranger.token, body: { url: receiver.url, events: ['order.created'], store_id: store.id } });
    expect(notTheirs.status).toBe(403);
    const notStaff = await app.rest('POST', '/api/webhooks/', { token: seller.token, body: { url: receiver.url, events: ['report.created'] } });
    expect(notStaff.status).toBe(403);
    const wrongEvents = await app.rest('POST', '/api/webhooks/', { token: seller.token, body: { url: receiver.url, events: ['report.created'], store_id: store.id } });
    expect(wrongEvents.status).toBe(400);
    expect(wrongEvents.body).toHaveProperty('events');
    const ftp = await app.rest('POST', '/api/webhooks/', { token: seller.token, body: { url: 'ftp://example.com/', events: ['order.created'], store_id: store.id } });
    expect(ftp.status).toBe(400);
    expect(ftp.body).toHaveProperty('url');
    for (let i = 1; i < 10; i++) await aWebhook(seller, { events: ['order.created'], store_id: store.id });
    const eleventh = await app.rest('POST', '/api/webhooks/', { token: seller.token, body: { url: receiver.url, events: ['order.created'], store_id: store.id } });
    expect(eleventh.status).toBe(400);
    expect(eleventh.body.non_field_errors[0]).toMatch(/At most 10/);
  });

  test('the secret is sealed in the database: a dump does not hold it', async () => {
    const { seller, store } = await aShopWithProduct(app);
    const hook = await aWebhook(seller, { events: ['order.created'], store_id: store.id });
    const { rows } = await platform.db.execute<{ dump: string }>(sql`SELECT row_to_json(w)::text AS dump FROM webhooks w WHERE id = ${hook.id}::uuid`);
    expect(rows[0].dump).not.toContain(hook.secret);
    expect(rows[0].dump).not.toContain(hook.secret.slice(6));
    expect(rows[0].dump).not.toContain('whsec_');
  });
});

describe('events and delivery', () => {
  test("when an order is placed, then the store's webhook gets order.created after the commit, signed by the Standard Webhooks spec, with the order as its REST read shows it", async () => {
    const { seller, store, product } = await aShopWithProduct(app, { stock: 1 });
    const hook = await aWebhook(seller, { events: [...['order.created', 'order.updated', 'order.cancelled', 'review.created', 'product.out_of_stock']], store_id: store.id });
    const buyer = await aShopper(app);
    const order = await anOrder(app, buyer, product.id);
    const got = await receiver.waitFor(2);
    const byType = Object.fromEntries(got.map((r) => [r.body.type, r]));
    expect(byType['order.created'].verifiedBy).toBe(0);
    expect(byType['order.created'].body).toEqual({ type: 'order.created', timestamp: expect.any(String), data: order });
    const sellersView = await app.rest('GET', '/api/stores/orders/', { token: seller.token, query: { role: 'seller' } });
    expect(sellersView.body.results[0]).toEqual(byType['order.created'].body.data);
    // Its one unit was the last: the product as its REST read shows it.
    const productRead = await app.rest('GET', `/api/stores/products/${product.id}/`, { token: seller.token });
    expect(byType['product.out_of_stock'].body.data).toEqual(productRead.body);
    expect(byType['product.out_of_stock'].verifiedBy).toBe(0);

    const cancelled = await app.rest('PATCH', `/api/stores/orders/${order.id}/`, { token: buyer.token, body: { status: 'cancelled' } });
    expect(cancelled.status).toBe(200);
    const [, , third] = await receiver.waitFor(3);
    expect(third.body).toMatchObject({ type: 'order.cancelled', data: cancelled.body });

    // A success is recorded with the end of its outbox row (a moment after the receiver answered).
    await settle();
    const listed = await deliveries(seller, hook.id);
    expect(listed.map((d) => d.type)).toEqual(['order.cancelled', expect.any(String), expect.any(String)]);
    expect(listed.every((d) => d.status === 'succeeded' && d.attempts === 1 && d.last_status_code === 200 && d.next_attempt_at === null)).toBe(true);
  });

  test('when the write rolls back, then nothing is queued or sent; a review is sent as its REST read shows it', async () => {
    const { seller, store, product } = await aShopWithProduct(app, { stock: 1 });
    const hook = await aWebhook(seller, { events: ['order.created', 'review.created'], store_id: store.id });
    const buyer = await aShopper(app);
    // Two units of one: refused after the webhooks were read, in the same transaction.
    const refused = await app.rest('POST', '/api/stores/orders/', { token: buyer.token, body: { product: product.id, quantity: 2 } });
    expect(refused.status).toBe(400);
    const review = await app.rest('POST', '/api/stores/reviews/', { token: buyer.token, body: { product: product.id, rating: 4, comment: 'good' } });
    expect(review.status).toBe(201);
    const [only] = await receiver.waitFor(1);
    await settle();
    expect(receiver.received).toHaveLength(1);
    expect(only.body).toMatchObject({ type: 'review.created', data: review.body });
    expect((await deliveries(seller, hook.id)).map((d) => d.type)).toEqual(['review.created']);
  });

  test('when the receiver fails, then it is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h by the outbox clock, with the same webhook-id every time, until it succeeds', async () => {
    let now = Date.now();
    outboxClock.now = () => new Date(now);
    const { seller, store, product } = await aShopWithProduct(app);
    const hook = await aWebhook(seller, { events: ['order.created'], store_id: store.id });
    let failures = 7; // the first attempt and six retries fail; the last retry succeeds
    receiver.answer = () => (failures-- > 0 ? 500 : 200);
    await anOrder(app, await aShopper(app), product.id);
    await receiver.waitFor(1);
    await settle();
    expect(RETRY_DELAYS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      const [pending] = await deliveries(seller, hook.id);
      expect(pending).toMatchObject({ status: 'pending', attempts: i + 1, last_status_code: 500 });
      expect(pending.last_response).toHaveLength(1024); // the 5,000 bytes answered, kept to 1 KB
      expect(new Date(pending.next_attempt_at).getTime()).toBe(now + delay);
      now += delay - 1000;
      await settle();
      expect(receiver.received).toHaveLength(i + 1); // not a second early
      now += 1000;
      await settle();
      expect(receiver.received).toHaveLength(i + 2);
    }
    const ids = new Set(receiver.received.map((r) => r.id));
    expect(ids.size).toBe(1);
    expect(receiver.received.every((r) => r.verifiedBy === 0)).toBe(true);
    const [done] = await deliveries(seller, hook.id);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 8, last_status_code: 200, next_attempt_at: null });
  });

  test('when the receiver answers 410, then the webhook is disabled at once and its owner notified (general); nothing more is sent', async () => {
    const { seller, store, product } = await aShopWithProduct(app, { stock: 5 });
    const hook = await aWebhook(seller, { events: ['order.created'], store_id: store.id });
    receiver.answer = () => 410;
    const buyer = await aShopper(app);
    await anOrder(app, buyer, product.id);
    await receiver.waitFor(1);
    await settle();
    expect((await app.rest('GET', `/api/webhooks/${hook.id}/`, { token: seller.token })).body.is_active).toBe(false);
    const [delivery] = await deliveries(seller, hook.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410, next_attempt_at: null });
    const notes = await app.rest('GET', '/api/notifications/', { token: seller.token });
    expect(notes.body.results.some((n: any) => n.notification_type === 'general' && /webhook .* disabled: the endpoint answered 410/.test(n.message))).toBe(true);
    outboxClock.now = () => new Date(Date.now() + 24 * 3600_000);
    await anOrder(app, buyer, product.id);
    await settle();
    expect(receiver.received).toHaveLength(1);
  });

  test('when a webhook has failed for 3 days, then it is disabled and its owner notified', async () => {
    let now = Date.now();
    outboxClock.now = () => new Date(now);
    const { seller, store, product } = await aShopWithProduct(app, { stock: 10 });
    const hook = await aWebhook(seller, { events: ['order.created'], store_id: store.id });
    receiver.answer = () => 503;
    const buyer = await aShopper(app);
    await anOrder(app, buyer, product.id);
    await receiver.waitFor(1);
    await settle();
    // A day and a half of retries of the first event, then a second event two days later still failing.
    for (const delay of RETRY_DELAYS_MS) {
      now += delay;
      await settle();
    }
    expect((await app.rest('GET', `/api/webhooks/${hook.id}/`, { token: seller.token })).body.is_active).toBe(true);
    now += 2 * 24 * 3600_000;
    await anOrder(app, buyer, product.id);
    await settle();
    expect((await app.rest('GET', `/api/webhooks/${hook.id}/`, { token: seller.token })).body.is_active).toBe(false);
    const notes = await app.rest('GET', '/api/notifications/', { token: seller.token });
    expect(notes.body.results.some((n: any) => n.notification_type === 'general' && /failed for 3 days/.test(n.message))).toBe(true);
  });

  test('when the receiver never answers, then the attempt ends at the timeout and other deliveries and requests go on meanwhile', async () => {
    expect(WEBHOOK_TIMEOUT_MS).toBe(15_000);
    senderHooks.timeoutMs = 1500; // the rule, shortened for the test
    const { seller, store, product } = await aShopWithProduct(app, { stock: 10 });
    const slow = await aWebhook(seller, { events: ['order.created'], store_id: store.id });
    const other = await aReceiver();
    try {
      const res = await app.rest('POST', '/api/webhooks/', { token: seller.token, body: { url: other.url, events: ['order.created'], store_id: store.id } });
      other.secrets.push(res.body.secret);
      receiver.answer = () => 'hang';
      const buyer = await aShopper(app);
      const order = await anOrder(app, buyer, product.id);
      await receiver.waitFor(1);
      // While the first endpoint hangs, the other got the event and the service answers.
      const [fast] = await other.waitFor(1);
      expect(fast.body.data.id).toBe(order.id);
      expect((await app.rest('GET', '/api/webhooks/', { token: seller.token })).status).toBe(200);
      const deadline = Date.now() + 10_000;
      let delivery: any;
      do {
        await new Promise((resolve) => setTimeout(resolve, 100));
        [delivery] = await deliveries(seller, slow.id);
      } while (delivery.attempts === 0 && Date.now() < deadline);
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null, last_response: 'No answer within 1.5 s.' });
    } finally {
      await other.close();
    }
  });

  test('rotate-secret: the new secret is answered once and, for 24 h, both sign (two signatures); then only the new one', async () => {
    let now = Date.now();
    outboxClock.now = () => new Date(now);
    const { seller, store } = await aShopWithProduct(app);
    const hook = await aWebhook(seller, { events: ['order.created'], store_id: store.id });
    const rotated = await app.rest('POST', `/api/webhooks/${hook.id}/rotate-secret/`, { token: seller.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    const test = await app.rest('POST', `/api/webhooks/${hook.id}/test/`, { token: seller.token });
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ type: 'webhook.test', status: 'pending', attempts: 0 });
    const [both] = await receiver.waitFor(1);
    expect(both.signature.split(' ')).toHaveLength(2);
    // Each secret alone verifies it: a receiver still on the old one, and one moved to the new one.
    receiver.secrets.splice(0, receiver.secrets.length, rotated.body.secret);
    const onlyNew = await aReceiverCheck(both, rotated.body.secret);
    const onlyOld = await aReceiverCheck(both, hook.secret);
    expect([onlyNew, onlyOld]).toEqual([true, true]);

    now += 24 * 3600_000 + 1000;
    const redelivered = await app.rest('POST', `/api/webhooks/${hook.id}/deliveries/${test.body.id}/redeliver/`, { token: seller.token });
    expect(redelivered.status).toBe(202);
    const [, again] = await receiver.waitFor(2);
    expect(again.id).toBe(both.id); // the same event, the same webhook-id
    expect(again.signature.split(' ')).toHaveLength(1);
    expect(await aReceiverCheck(again, rotated.body.secret)).toBe(true);
    expect(await aReceiverCheck(again, hook.secret)).toBe(false);
  });
});

/** Whether `standardwebhooks` with this secret alone accepts what was received. */
async function aReceiverCheck(r: { raw: string; id: string; timestamp: string; signature: string }, secret: string): Promise<boolean> {
  const { Webhook } = await import('standardwebhooks');
  try {
    new Webhook(secret).verify(r.raw, { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature });
    return true;
  } catch {
    return false;
  }
}

describe("staff's service events", () => {
  test('report.created and moderation.action reach a staff webhook with the case as the queue shows it to staff', async () => {
    const adminToken = await loginAdmin(app, admin);
    const hook = await aWebhook({ token: adminToken }, { events: ['report.created', 'moderation.action'] });
    const reporter = await aUser(app);
    const target = await aUser(app);
    await aReport(app, reporter, 'user', target.id);
    const [reported] = await receiver.waitFor(1);
    expect(reported.verifiedBy).toBe(0);
    const queue = await app.rest('GET', '/api/admin/reports/', { token: adminToken, query: { page_size: 100 } });
    const theCase = queue.body.results.find((c: any) => c.id === reported.body.data.id);
    expect(reported.body).toEqual({ type: 'report.created', timestamp: expect.any(String), data: theCase });
    const resolved = await app.rest('POST', `/api/admin/reports/${theCase.id}/resolve/`, { token: adminToken, body: { action: 'dismiss' } });
    expect(resolved.status).toBe(200);
    const [, action] = await receiver.waitFor(2);
    expect(action.body).toMatchObject({ type: 'moderation.action', data: resolved.body });
    expect((await deliveries({ token: adminToken }, hook.id)).map((d) => d.type)).toEqual(['moderation.action', 'report.created']);
  });
});

describe('leaving', () => {
  test("the account's export lists its webhooks without secrets; deleting the store, then the account, deletes them", async () => {
    const seller = await aShopper(app);
    const store = await aStore(app, seller);
    const other = await aStore(app, seller);
    const onStore = await aWebhook(seller, { events: ['order.created'], store_id: store.id });
    const onOther = await aWebhook(seller, { events: ['order.created'], store_id: other.id });
    const exported = await app.rest('GET', '/api/users/profile/export/', { token: seller.token });
    expect(exported.status).toBe(200);
    expect(exported.body.webhooks.map((w: any) => w.id).sort()).toEqual([onStore.id, onOther.id].sort());
    expect(JSON.stringify(exported.body.webhooks)).not.toContain('whsec_');

    expect((await app.rest('DELETE', `/api/stores/stores/${store.id}/`, { token: seller.token })).status).toBe(204);
    const count = async () => (await platform.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM webhooks WHERE owner_id = ${seller.id}::uuid`)).rows[0].n;
    expect(await count()).toBe(1);
    const gone = await app.rest('DELETE', '/api/users/profile/', { token: seller.token, body: { password: seller.password } });
    expect(gone.status).toBe(204);
    expect(await count()).toBe(0);
  });
});

test('unique ids per event: two webhooks of one store get one event under one webhook-id, each signed with its own secret', async () => {
  const { seller, store, product } = await aShopWithProduct(app);
  await aWebhook(seller, { events: ['order.created'], store_id: store.id });
  await aWebhook(seller, { events: ['order.created'], store_id: store.id });
  await anOrder(app, await aShopper(app), product.id);
  const [a, b] = await receiver.waitFor(2);
  expect(a.id).toBe(b.id);
  expect(new Set([a.verifiedBy, b.verifiedBy])).toEqual(new Set([0, 1]));
  expect(crypto.timingSafeEqual(Buffer.from(a.raw), Buffer.from(b.raw))).toBe(true);
});
