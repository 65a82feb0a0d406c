import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { aShopWithProduct, aShopper, anOrder } from '../builders/stores.js';
import { sql } from '../helpers/sql.js';
import { JOBS, runJob } from '../../src/jobs/index.js';
import { outboxClock, outboxWorker } from '../../src/platform/outbox.js';
import { RETRY_DELAYS_MS } from '../../src/modules/webhooks/webhooks.outbox.js';
import { DELIVERY_RETENTION_DAYS, webhooksHousekeepingJob } from '../../src/modules/webhooks/webhooks.job.js';
import { GIVEN_UP_RETENTION_DAYS, outboxGivenUpCleanupJob } from '../../src/platform/outbox-cleanup.job.js';

/**
 * Webhook housekeeping (docs/webhooks.md, "Retention"): the hourly job disables a webhook failing for 3 days even
 * when no attempt comes to notice it, and deletes deliveries past their retention; the outbox job deletes rows given
 * up long ago. Real orders, a real loopback receiver, the outbox's test clock to reach days later.
 */
let app: TestApp;
let receiver: Receiver;
const realNow = outboxClock.now;
const DAY = 24 * 3600_000;

beforeAll(async () => {
  app = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: 'true' });
});
beforeEach(async () => {
  receiver = await aReceiver();
});
afterEach(async () => {
  outboxClock.now = realNow;
  await receiver.close();
});
afterAll(async () => {
  await app.stop();
});

const settle = () => outboxWorker!.settle();

async function aHookedShop() {
  const { seller, store, product } = await aShopWithProduct(app, { stock: 50 });
  const res = await app.rest('POST', '/api/webhooks/', { token: seller.token, body: { url: receiver.url, events: ['order.created'], store_id: store.id } });
  expect(res.status).toBe(201);
  receiver.secrets.push(res.body.secret);
  return { seller, product, hook: res.body, buyer: await aShopper(app) };
}

const isActive = async (token: string, id: string) => (await app.rest('GET', `/api/webhooks/${id}/`, { token })).body.is_active as boolean;

test('both jobs are scheduled', () => {
  expect(JOBS).toEqual(expect.arrayContaining([webhooksHousekeepingJob, outboxGivenUpCleanupJob]));
});

test('when a webhook has failed for 3 days and no further attempt comes, then the housekeeping job disables it and tells its owner once; one failing for less stays on', async () => {
  let now = Date.now();
  outboxClock.now = () => new Date(now);
  receiver.answer = () => 503;
  const failing = await aHookedShop();
  const younger = await aHookedShop();
  await anOrder(app, failing.buyer, failing.product.id);
  await settle();
  // Every retry of the one event fails (about 28 h), then nothing happens.
  for (const delay of RETRY_DELAYS_MS) {
    now += delay;
    await settle();
  }
  expect((await sql('SELECT status FROM webhook_deliveries WHERE webhook_id = $1', [failing.hook.id])).map((d) => d.status)).toEqual(['failed']);
  now += 2 * DAY; // past 3 days since the first failure, with no attempt left
  await anOrder(app, younger.buyer, younger.product.id);
  await settle(); // the younger webhook's first failure: failing since just now
  expect(await isActive(failing.seller.token, failing.hook.id)).toBe(true);

  // At least this one (the database may hold other tests' failing webhooks, which the moved clock ages too).
  expect(((await webhooksHousekeepingJob.run()) as { disabled: number }).disabled).toBeGreaterThanOrEqual(1);
  expect(await isActive(failing.seller.token, failing.hook.id)).toBe(false);
  expect(await isActive(younger.seller.token, younger.hook.id)).toBe(true);
  const read = await app.rest('GET', '/api/notifications/', { token: failing.seller.token });
  expect(read.body.results.filter((n: any) => n.notification_type === 'general' && /disabled: its deliveries have failed for 3 days/.test(n.message))).toHaveLength(1);
  // Idempotent: a second run disables nothing more and tells nobody again.
  expect(await webhooksHousekeepingJob.run()).toMatchObject({ disabled: 0 });
  const again = await app.rest('GET', '/api/notifications/', { token: failing.seller.token });
  expect(again.body.results.filter((n: any) => /failed for 3 days/.test(n.message))).toHaveLength(1);
});

test(`when deliveries are older than ${DELIVERY_RETENTION_DAYS} days, then the job deletes them (not a pending one, nor recent ones), and a second run deletes nothing`, async () => {
  const { seller, product, hook, buyer } = await aHookedShop();
  for (let i = 0; i < 3; i++) await anOrder(app, buyer, product.id);
  await settle();
  const ids = (await sql<{ id: string }>('SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at', [hook.id])).map((d) => d.id);
  expect(ids).toHaveLength(3);
  const [old, oldPending, recent] = ids;
  const aged = `now() - interval '${DELIVERY_RETENTION_DAYS} days' - interval '1 hour'`;
  await sql(`UPDATE webhook_deliveries SET created_at = ${aged}, last_attempt_at = ${aged} WHERE id = ANY($1)`, [[old, oldPending]]);
  // An old delivery redelivered is pending again: it stays until its new attempts are over.
  await sql(`UPDATE webhook_deliveries SET status = 'pending' WHERE id = $1`, [oldPending]);

  expect(await runJob(webhooksHousekeepingJob)).toBe(true);
  const left = await app.rest('GET', `/api/webhooks/${hook.id}/deliveries/`, { token: seller.token });
  expect(left.body.results.map((d: any) => d.id).sort()).toEqual([oldPending, recent].sort());
  expect(await webhooksHousekeepingJob.run()).toMatchObject({ deleted: 0 });
});

test(`when outbox rows were given up more than ${GIVEN_UP_RETENTION_DAYS} days ago, then the outbox job deletes them; rows given up since, and queued ones, stay`, async () => {
  const { product, hook, buyer } = await aHookedShop();
  receiver.answer = () => 410; // given up at once (and the webhook disabled)
  await anOrder(app, buyer, product.id);
  await settle();
  const [givenUp] = await sql<{ id: string }>(`SELECT id::text FROM outbox WHERE key = $1 AND failed_at IS NOT NULL`, [hook.id]);
  expect(givenUp).toBeDefined();
  const recent = await sql<{ id: string }>(
    `INSERT INTO outbox (kind, payload, key, failed_at, last_error) VALUES ('webhook.delivery', '{"delivery_id":"00000000-0000-0000-0000-000000000000"}', $1, now() - interval '1 day', 'x') RETURNING id::text`,
    [hook.id],
  );
  const queued = await sql<{ id: string }>(
    `INSERT INTO outbox (kind, payload, key, run_at) VALUES ('webhook.delivery', '{"delivery_id":"00000000-0000-0000-0000-000000000000"}', $1, now() + interval '400 days') RETURNING id::text`,
    [hook.id],
  );
  await sql(`UPDATE outbox SET failed_at = now() - interval '${GIVEN_UP_RETENTION_DAYS} days' - interval '1 hour' WHERE id = $1`, [givenUp.id]);

  expect(await runJob(outboxGivenUpCleanupJob)).toBe(true);
  const left = await sql<{ id: string }>('SELECT id::text FROM outbox WHERE key = $1', [hook.id]);
  expect(left.map((r) => r.id).sort()).toEqual([recent[0].id, queued[0].id].sort());
  expect(await outboxGivenUpCleanupJob.run()).toEqual({ deleted: 0 });
  await sql('DELETE FROM outbox WHERE id = ANY($1::bigint[])', [[recent[0].id, queued[0].id]]);
});
