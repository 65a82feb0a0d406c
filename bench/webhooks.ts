import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import http from 'node:http';
import crypto from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { createDatabaseIfMissing } from './lib/harness.js';
import { bootstrapRatioInterval, percentile } from './lib/stats.js';
import { serviceEnv, startScript } from './media-start.js';

/**
 * `npm run bench -- webhooks` (issue 37): orders at 50 a second (open loop: one sent every 20 ms whatever the
 * answers) to a service in a process of its own (`npm start`'s command, PostgreSQL), with a loopback receiver in a
 * thread of this process verifying each request with `standardwebhooks` (its own thread: a receiver stands in for
 * another machine, and in this thread its work would delay the timing of the orders' answers; and at the lowest
 * priority, nice 19 for that thread alone, so that it runs on time the machine has spare rather than taking it from
 * the service under test, as a receiver on another machine would not: the header's line says whether it took).
 *
 * - rounds: orders of a store with one webhook subscribed to `order.created` and of a store with none take turns
 *   (`--rounds` of `--round-seconds` each), so the two see the same machine. Figures: the order's answer time (sent
 *   to answered) in each, their p99 ratio, and commit-to-delivery, bounded above by sent-to-delivered: the commit
 *   happens between the order's sending and its answer, so this counts the order's own time too.
 * - failing: `--failing-seconds` (default 4) of orders during which the receiver answers 500 to everything, between
 *   2 s of orders before and 4 s after. The retry schedule is the real one (first retry after 5 s), so each event
 *   failed in the window is delivered by its second attempt; a window longer than 5 s makes the events of its start
 *   fail twice and wait for the 5 min retry (the bench waits for them: `--wait-seconds`, default 30 + the window,
 *   then counts what is missing). Checked: every order delivered, none accepted under two ids, every signature
 *   valid.
 *
 * The orders of each store go round `--products` products (default 10): an order holds its product's row lock
 * until it commits, so orders of one single product queue behind each other, and the webhook's statements in the
 * order's transaction (one read, two inserts) lengthen that hold (`--products=1` shows it).
 *
 * Database: BENCH_DATABASE_URL, default `postgres://postgres@127.0.0.1:5432/hl_webhooks_bench` (created when
 * missing; the orders stay in it). Service settings for the bench: RATE_LIMITS=off, WEBHOOK_ALLOW_PRIVATE_ENDPOINTS
 * (a loopback receiver), ORDER_MAX_PENDING_UNITS=1000000 (a few buyers place thousands of orders).
 */
export interface WebhooksOptions {
  rate: number;
  /** Products per store the orders go round (each order locks its product's row until its commit). */
  products: number;
  rounds: number;
  roundSeconds: number;
  failingSeconds: number;
  waitSeconds: number;
}

export interface WebhooksResult {
  rows: Array<{ name: string; n: number; p50: number; p90: number; p99: number; max: number; note?: string }>;
  orderP99Ratio: number;
  /** The ratio's 95 % bootstrap interval over these very samples: how far it moves by chance alone. */
  orderP99RatioInterval: [number, number];
  failing: { orders: number; delivered: number; missing: number; requests: number; answered500: number; duplicateIdsForOneOrder: number; sameIdAcceptedAgain: number; invalidSignatures: number; lastDeliveredAfterRecoveryMs: number };
  load: string;
  /** Whether the receiver's thread runs at the lowest priority (nice 19), as it stands in for another machine. */
  receiverNiced: boolean;
}

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/hl_webhooks_bench';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Arrival {
  id: string;
  orderId: string;
  at: number;
  status: number;
  valid: boolean;
}

/**
 * The receiver (bench/lib/webhook-receiver.worker.mjs): verifies with standardwebhooks and records when each request
 * arrived, in a thread of its own, so that its work does not delay this thread's timing of the orders.
 */
async function startReceiver() {
  const worker = new Worker(new URL('./lib/webhook-receiver.worker.mjs', import.meta.url));
  const waiting = new Map<number, (answer: any) => void>();
  let nextId = 1;
  const ready = new Promise<{ port: number; niced: boolean }>((resolve) => waiting.set(0, (m) => resolve(m)));
  worker.on('message', (m) => {
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
  });
  const ask = (message: object) =>
    new Promise<any>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      worker.postMessage({ id, ...message });
    });
  const { port, niced } = await ready;
  // Its clock is read on the epoch's scale; this thread's performance.now() starts at its own timeOrigin.
  const arrivals = async (from = 0): Promise<Arrival[]> =>
    ((await ask({ op: 'arrivals', from })).arrivals as Arrival[]).map((a) => ({ ...a, at: a.at - performance.timeOrigin }));
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    niced,
    arrivals,
    setSecret: (secret: string) => ask({ op: 'secret', value: secret }),
    setStatus: (status: number) => ask({ op: 'status', value: status }),
    close: async () => {
      await ask({ op: 'close' });
      await worker.terminate();
    },
  };
}

async function startService(databaseUrl: string): Promise<{ url: string; child: ChildProcess; dataDir: string }> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-bench-webhooks-'));
  const { env: scriptEnv, nodeFlags } = await startScript();
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const env = serviceEnv(scriptEnv);
  for (const name of ['REDIS_URL', 'NODE_OPTIONS', 'TEST_DATABASE_URL']) delete env[name];
  Object.assign(env, {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    RATE_LIMITS: 'off',
    WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: 'true',
    ORDER_MAX_PENDING_UNITS: '1000000',
  });
  // WEBHOOKS_BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof": a CPU profile of the service (written at its exit).
  const extra = (process.env.WEBHOOKS_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeFlags, ...extra, '--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  while (!(await fetch(`${url}/health`).then((r) => r.status === 200, () => false))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('the service did not start');
    await sleep(100);
  }
  return { url, child, dataDir };
}

async function rest(base: string, method: string, p: string, token?: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await res.json().catch(() => null);
  return { status: res.status, body: parsed };
}

async function must(base: string, method: string, p: string, token: string | undefined, body: unknown, status: number): Promise<any> {
  const res = await rest(base, method, p, token, body);
  if (res.status !== status) throw new Error(`${method} ${p} answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function aUser(base: string): Promise<string> {
  const name = `bwh${crypto.randomBytes(5).toString('hex')}`;
  const body = await must(base, 'POST', '/api/auth/register/', undefined, { email: `${name}@bench.invalid`, username: name, display_name: 'Bench', password: 'correct-horse-battery' }, 201);
  return body.access_token;
}

/** A store with `products` products; answers the store's id and its products' ids. */
async function aStoreWithProducts(base: string, token: string, products: number): Promise<{ storeId: string; productIds: string[] }> {
  const slug = `bwh${crypto.randomBytes(5).toString('hex')}`;
  const store = await must(base, 'POST', '/api/stores/stores/', token, { name: `Shop ${slug}`, slug, description: 'bench' }, 201);
  const productIds: string[] = [];
  for (let i = 0; i < products; i++) {
    const product = await must(base, 'POST', '/api/stores/products/', token, { store_id: store.id, name: `Jam ${slug} ${i}`, category: 'home_garden', stock: 1_000_000, price_type: 'fixed', price: '1.00' }, 201);
    productIds.push(product.id);
  }
  return { storeId: store.id, productIds };
}

interface Placed {
  sentAt: number;
  answeredMs: number;
  orderId: string | null;
}

/** `rate` orders a second for `seconds`, open loop; resolves once every answer is in. */
async function placeOrders(base: string, buyers: string[], productIds: string[], rate: number, seconds: number): Promise<Placed[]> {
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const start = performance.now();
  const pending: Array<Promise<Placed>> = [];
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const sentAt = performance.now();
    pending.push(
      rest(base, 'POST', '/api/stores/orders/', buyers[i % buyers.length], { product: productIds[i % productIds.length], quantity: 1 }).then((res) => ({
        sentAt,
        answeredMs: performance.now() - sentAt,
        orderId: res.status === 201 ? (res.body.id as string) : null,
      })),
    );
  }
  return Promise.all(pending);
}

/** CPU time (user + system) of a process so far, in ms, from /proc (Linux). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100 Hz)
}

/**
 * Busy CPU time of the whole machine so far (all cores, from /proc/stat: every state but idle and iowait), in ms:
 * the service, the database server and this process (load and receiver) together, read in each round so that the
 * two kinds of rounds compare what an order and its delivery cost everywhere. Other work on the machine counts too:
 * read with nothing else running (the bench lock).
 */
async function machineCpuMs(): Promise<number> {
  const line = (await fs.readFile('/proc/stat', 'utf8')).split('\n')[0];
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = ticks.reduce((a, b) => a + b, 0) - ticks[3] - (ticks[4] ?? 0);
  return (busy * 1000) / 100; // clock ticks (100 Hz)
}

function row(name: string, samples: number[], note?: string) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { name, n: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted[sorted.length - 1], note };
}

async function waitUntil(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

export async function runWebhooks(opts: WebhooksOptions): Promise<WebhooksResult> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  await createDatabaseIfMissing(databaseUrl);
  const receiver = await startReceiver();
  const service = await startService(databaseUrl);
  try {
    const base = service.url;
    const seller = await aUser(base);
    const buyers = await Promise.all(Array.from({ length: 20 }, () => aUser(base)));
    const hookedStore = await aStoreWithProducts(base, seller, opts.products);
    const hooked = hookedStore.productIds;
    const bare = (await aStoreWithProducts(base, seller, opts.products)).productIds;
    const webhook = await must(base, 'POST', '/api/webhooks/', seller, { url: receiver.url, events: ['order.created'], store_id: hookedStore.storeId }, 201);
    await receiver.setSecret(webhook.secret);

    // Warm-up (untimed): both paths, the sender's connection included.
    await placeOrders(base, buyers, hooked, opts.rate, 2);
    await placeOrders(base, buyers, bare, opts.rate, 2);
    await waitUntil(async () => (await receiver.arrivals()).length >= opts.rate * 2, 10_000);

    const withHook: Placed[] = [];
    const without: Placed[] = [];
    // The service's CPU per order, each way (with a webhook: until the round's deliveries are done).
    const cpu = { withHook: 0, without: 0 };
    // The same for the whole machine.
    const machineCpu = { withHook: 0, without: 0 };
    const pid = service.child.pid!;
    for (let r = 0; r < opts.rounds; r++) {
      let from = await cpuMs(pid);
      let machineFrom = await machineCpuMs();
      withHook.push(...(await placeOrders(base, buyers, hooked, opts.rate, opts.roundSeconds)));
      // Let the round's deliveries finish before the no-webhook round, so it runs with none in flight.
      const ids = new Set(withHook.map((p) => p.orderId));
      await waitUntil(async () => (await receiver.arrivals()).filter((a) => ids.has(a.orderId)).length >= ids.size, 10_000);
      cpu.withHook += (await cpuMs(pid)) - from;
      machineCpu.withHook += (await machineCpuMs()) - machineFrom;
      from = await cpuMs(pid);
      machineFrom = await machineCpuMs();
      without.push(...(await placeOrders(base, buyers, bare, opts.rate, opts.roundSeconds)));
      cpu.without += (await cpuMs(pid)) - from;
      machineCpu.without += (await machineCpuMs()) - machineFrom;
    }
    const arrivedAt = new Map((await receiver.arrivals()).map((a) => [a.orderId, a.at]));
    const delivered = withHook.filter((p) => p.orderId && arrivedAt.has(p.orderId));
    const toDelivery = delivered.map((p) => arrivedAt.get(p.orderId!)! - p.sentAt);
    const failedOrders = [...withHook, ...without].filter((p) => !p.orderId).length;
    const rows = [
      row('order (store with no webhook)', without.map((p) => p.answeredMs), `service CPU ${(cpu.without / without.length).toFixed(1)} ms/order, machine ${(machineCpu.without / without.length).toFixed(1)}${failedOrders ? `; ${failedOrders} orders not 201` : ''}`),
      row('order (store with one webhook)', withHook.map((p) => p.answeredMs), `service CPU ${(cpu.withHook / withHook.length).toFixed(1)} ms/order, machine ${(machineCpu.withHook / withHook.length).toFixed(1)}, its delivery included`),
      row('order sent -> delivered (bounds commit -> delivered)', toDelivery, `${withHook.length - delivered.length} of ${withHook.length} not delivered`),
    ];

    // The receiver is down (500) for a while, then recovers.
    const before = (await receiver.arrivals()).length;
    const phase = placeOrders(base, buyers, hooked, opts.rate, 2 + opts.failingSeconds + 4);
    await sleep(2000);
    await receiver.setStatus(500);
    await sleep(opts.failingSeconds * 1000);
    await receiver.setStatus(200);
    const recoveredAt = performance.now();
    const placed = await phase;
    const orderIds = new Set(placed.filter((p) => p.orderId).map((p) => p.orderId!));
    const accepted = async () => (await receiver.arrivals(before)).filter((a) => a.status === 200 && orderIds.has(a.orderId));
    await waitUntil(async () => new Set((await accepted()).map((a) => a.orderId)).size >= orderIds.size, opts.waitSeconds * 1000);
    await sleep(1500); // a duplicate would show up within a poll
    const arrivals = (await receiver.arrivals(before)).filter((a) => orderIds.has(a.orderId));
    const ok = arrivals.filter((a) => a.status === 200);
    const idsPerOrder = new Map<string, Set<string>>();
    for (const a of arrivals) idsPerOrder.set(a.orderId, (idsPerOrder.get(a.orderId) ?? new Set()).add(a.id));
    const okIds = ok.map((a) => a.id);
    const deliveredOrders = new Set(ok.map((a) => a.orderId));
    const failing = {
      orders: orderIds.size,
      delivered: deliveredOrders.size,
      missing: orderIds.size - deliveredOrders.size,
      requests: arrivals.length,
      answered500: arrivals.filter((a) => a.status === 500).length,
      duplicateIdsForOneOrder: [...idsPerOrder.values()].filter((ids) => ids.size > 1).length,
      sameIdAcceptedAgain: okIds.length - new Set(okIds).size,
      invalidSignatures: arrivals.filter((a) => !a.valid).length,
      lastDeliveredAfterRecoveryMs: Math.max(0, ...ok.map((a) => a.at - recoveredAt)),
    };
    const p99 = (rowName: string) => rows.find((r) => r.name === rowName)!.p99;
    return {
      rows,
      orderP99Ratio: p99('order (store with one webhook)') / p99('order (store with no webhook)'),
      orderP99RatioInterval: bootstrapRatioInterval(withHook.map((p) => p.answeredMs), without.map((p) => p.answeredMs), 99),
      failing,
      load: os.loadavg().map((n) => n.toFixed(2)).join(' '),
      receiverNiced: receiver.niced,
    };
  } finally {
    service.child.kill('SIGTERM');
    await new Promise((resolve) => service.child.once('exit', resolve));
    await fs.rm(service.dataDir, { recursive: true, force: true });
    await receiver.close();
  }
}

export function formatWebhooks(result: WebhooksResult, opts: WebhooksOptions): string {
  const f = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(1));
  const lines = [
    `webhooks: ${opts.rate} orders/s over ${opts.products} products a store, ${opts.rounds} rounds of ${opts.roundSeconds} s each way (load average ${result.load}; receiver thread ${result.receiverNiced ? 'at nice 19' : 'at normal priority'})`,
    '| case | n | p50 ms | p90 ms | p99 ms | max ms | note |',
    '|---|---|---|---|---|---|---|',
    ...result.rows.map((r) => `| ${r.name} | ${r.n} | ${f(r.p50)} | ${f(r.p90)} | ${f(r.p99)} | ${f(r.max)} | ${r.note ?? ''} |`),
    `order p99 with a webhook / without: ${result.orderP99Ratio.toFixed(2)}x (95 % bootstrap interval ${result.orderP99RatioInterval.map((x) => x.toFixed(2)).join('-')})`,
    `receiver answering 500 for ${opts.failingSeconds} s: ${JSON.stringify(result.failing)}`,
  ];
  return lines.join('\n');
}
