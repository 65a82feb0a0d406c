// @run-alone: kills processes (kill -9 of a real service, then its restart)
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import pg from 'pg';
import { unique } from '../helpers/test-app.js';
import { aReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { killGroup, restJson, serviceReady, startServiceProcess, SERVICE_START_MS, type ServiceProcess } from '../helpers/service-process.js';

/**
 * DESIGN.md section 12 / issue 37: an event committed but not yet delivered when its node is killed (`kill -9`) is
 * delivered after the restart, exactly once, signed. Real service processes (`npm start`'s command), a real receiver
 * on loopback verifying with `standardwebhooks`.
 *
 * Holding the delivery back after its commit, for real: the first node runs with OUTBOX_MAX_IN_FLIGHT=1 and its only
 * slot is taken by a test event to a second receiver that never answers (the sender waits up to 15 s on it). The
 * order's delivery is committed in the order's transaction and waits, unclaimed, for that slot; the node is killed
 * then. The restarted node (default settings) claims it at its start.
 */
const groups = new Set<number>();
const receivers: Receiver[] = [];
const dataDirs: string[] = [];

afterAll(async () => {
  for (const group of groups) killGroup(group, 'SIGKILL');
  await Promise.all(receivers.map((r) => r.close()));
  await Promise.all(dataDirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(env: Record<string, string>): Promise<ServiceProcess> {
  const service = await startServiceProcess(env);
  groups.add(service.group);
  await serviceReady(service);
  return service;
}

async function register(service: ServiceProcess): Promise<string> {
  const username = unique('crashhook');
  const res = await restJson(service, 'POST', '/api/auth/register/', {
    body: { email: `${username}@example.test`, username, display_name: 'Crash Hook', password: 'correct-horse-battery' },
  });
  expect(res.status).toBe(201);
  return res.body.access_token;
}

async function aReceiverFor(service: ServiceProcess, token: string, storeId: string, events: string[]): Promise<{ receiver: Receiver; webhookId: string }> {
  const receiver = await aReceiver();
  receivers.push(receiver);
  const created = await restJson(service, 'POST', '/api/webhooks/', { token, body: { url: receiver.url, events, store_id: storeId } });
  expect(created.status).toBe(201);
  receiver.secrets.push(created.body.secret);
  return { receiver, webhookId: created.body.id };
}

async function deliveries(service: ServiceProcess, token: string, webhookId: string): Promise<any[]> {
  const res = await restJson(service, 'GET', `/api/webhooks/${webhookId}/deliveries/`, { token });
  expect(res.status).toBe(200);
  return res.body.results;
}

/**
 * The whole story on one database. `database`: the env that picks it (DATABASE_URL, or none: the embedded one in
 * DATA_DIR); `outboxRow`: reads the delivery's outbox row from outside the service, where the database allows it.
 */
async function killedBeforeDeliveryDeliversAfterRestart(database: Record<string, string>, outboxRow?: (deliveryId: string) => Promise<any>) {
  // Kept across the restart: the embedded database and the generated JWT secret (which seals webhook secrets) live here.
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-webhook-crash-'));
  dataDirs.push(dataDir);
  const env = { ...database, DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: 'true' };
  const first = await start({ ...env, OUTBOX_MAX_IN_FLIGHT: '1' });

  const seller = await register(first);
  const slug = unique('crashshop');
  const store = await restJson(first, 'POST', '/api/stores/stores/', { token: seller, body: { name: `Shop ${slug}`, slug, description: 'Till' } });
  expect(store.status).toBe(201);
  const product = await restJson(first, 'POST', '/api/stores/products/', {
    token: seller,
    body: { store_id: store.body.id, name: unique('Jam '), category: 'home_garden', stock: 5, price_type: 'fixed', price: '12.50' },
  });
  expect(product.status).toBe(201);
  const held = await aReceiverFor(first, seller, store.body.id, ['review.created']);
  held.receiver.answer = () => 'hang';
  const till = await aReceiverFor(first, seller, store.body.id, ['order.created']);

  // The node's one outbox slot now waits on a receiver that does not answer.
  expect((await restJson(first, 'POST', `/api/webhooks/${held.webhookId}/test/`, { token: seller })).status).toBe(202);
  await held.receiver.waitFor(1);

  const buyer = await register(first);
  const order = await restJson(first, 'POST', '/api/stores/orders/', { token: buyer, body: { product: product.body.id, quantity: 1 } });
  expect(order.status).toBe(201);
  // Committed, not delivered: the delivery is pending and never tried, the till has heard nothing.
  const [pending] = await deliveries(first, seller, till.webhookId);
  expect(pending).toMatchObject({ type: 'order.created', status: 'pending', attempts: 0 });
  if (outboxRow) expect(await outboxRow(pending.id)).toMatchObject({ locked_until: null, attempts: 0, failed_at: null });
  expect(till.receiver.received).toHaveLength(0);

  killGroup(first.group, 'SIGKILL');
  await first.exited;
  expect(till.receiver.received).toHaveLength(0);

  const second = await start(env);
  await till.receiver.waitFor(1, 30_000);
  // More than two polls (OUTBOX_POLL_MS, 1 s) for a second copy to show up, were there one.
  await sleep(2500);
  expect(till.receiver.received).toHaveLength(1);
  const [got] = till.receiver.received;
  expect(got.verifiedBy).toBe(0);
  expect(got.id).toBe(pending.event_id);
  expect(got.body).toMatchObject({ type: 'order.created', data: { id: order.body.id, status: 'pending' } });
  const [done] = await deliveries(second, seller, till.webhookId);
  expect(done).toMatchObject({ id: pending.id, status: 'succeeded', attempts: 1, last_status_code: 200 });

  killGroup(second.group, 'SIGTERM');
  await second.exited;
}

// PGlite (TEST_EMBEDDED): the test run's database has a single shared session, not one for a killed process; the
// embedded case below covers that database.
(process.env.TEST_EMBEDDED ? test.skip : test)(
  'when a node on PostgreSQL is killed (kill -9) after an order commits and before its webhook is delivered, then after the restart the receiver gets it exactly once, verified',
  async () => {
    const url = process.env.TEST_DATABASE_URL!;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await killedBeforeDeliveryDeliversAfterRestart({ DATABASE_URL: url }, async (deliveryId) => {
        const { rows } = await client.query(`SELECT locked_until, attempts, failed_at FROM outbox WHERE kind = 'webhook.delivery' AND payload->>'delivery_id' = $1`, [deliveryId]);
        return rows[0];
      });
    } finally {
      await client.end();
    }
  },
  SERVICE_START_MS * 3,
);

test(
  'when a node on the embedded database (DATABASE_URL unset) is killed (kill -9) after an order commits and before its webhook is delivered, then after a restart on the same DATA_DIR the receiver gets it exactly once, verified',
  () => killedBeforeDeliveryDeliversAfterRestart({}),
  SERVICE_START_MS * 3,
);
