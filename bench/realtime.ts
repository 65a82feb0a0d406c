import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import crypto from 'node:crypto';
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Server } from 'socket.io';
import { loadConfig } from '../src/platform/config.js';
import { startServer } from '../src/server.js';
import { createDatabaseIfMissing, DEFAULT_DATABASE_URL } from './lib/harness.js';
import { percentile } from './lib/stats.js';

/**
 * `npm run bench -- realtime`: fan-out of `post:created` on one node. `--sockets=N` connected sockets (default
 * 10,000), of which `--subscribed=M` (default 1,000) subscribe to one location room; posts are created over REST
 * at each rate of `--rates=50,100,...` (posts per second) for `--duration=S` seconds; the latency is from the
 * REST call's start to the arrival on every subscribed socket (p50, p99, and deliveries missing). Then, in the
 * same run, a bare Socket.IO server broadcasts the same payload to the same room at the same rates (latency from
 * the emit call). Memory per idle socket: the server thread's heap (+ external) after connecting the sockets, minus
 * before, over N (after a full GC). The client sockets live in a worker thread (bench/realtime-clients.mjs).
 * Rate limits are off (RATE_LIMITS=off) and the per-address socket cap raised: every socket comes from 127.0.0.1.
 * With REDIS_URL set, the service runs again as two nodes (two processes, bench/realtime-node.ts) with the Redis
 * adapter, half the sockets and half the room on each, posts made through the first.
 */
export interface RealtimeOptions {
  sockets: number;
  subscribed: number;
  rates: number[];
  durationSeconds: number;
  /** With a Redis URL, the service is measured again on two nodes (half the sockets on each). */
  redisUrl?: string;
}

export interface RealtimeRow {
  server: 'service' | 'bare socket.io' | 'service, 2 nodes';
  rate: number;
  posts: number;
  deliveries: number;
  missing: number;
  p50: number;
  p99: number;
  max: number;
}

const now = () => performance.timeOrigin + performance.now();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function exposeGc(): () => void {
  v8.setFlagsFromString('--expose_gc');
  return vm.runInNewContext('gc') as () => void;
}

class Clients {
  private worker = new Worker(path.join(path.dirname(fileURLToPath(import.meta.url)), 'realtime-clients.mjs'));
  private ask<T>(msg: Record<string, unknown>, reply: string): Promise<T> {
    return new Promise((resolve) => {
      const onMessage = (m: { cmd: string }) => {
        if (m.cmd !== reply) return;
        this.worker.off('message', onMessage);
        resolve(m as T);
      };
      this.worker.on('message', onMessage);
      this.worker.postMessage(msg);
    });
  }
  async connect(url: string, count: number, subscribed: number, subscribe: { channel: string; id: string }) {
    const r = await this.ask<{ failed: number; firstError?: string }>({ cmd: 'connect', url, count, subscribed, subscribe }, 'connected');
    if (r.failed) throw new Error(`${r.failed} of ${count} sockets failed to connect or subscribe: ${r.firstError}`);
  }
  record(on: boolean) {
    return this.ask({ cmd: 'record', on }, 'recording');
  }
  async collect(): Promise<Record<string, number[]>> {
    return (await this.ask<{ arrivals: Record<string, number[]> }>({ cmd: 'collect' }, 'collected')).arrivals;
  }
  close() {
    return this.ask({ cmd: 'close' }, 'closed');
  }
  stop() {
    return this.worker.terminate();
  }
}

/** Send `rate` per second for `seconds`, each at its own scheduled instant; answers marker -> start time. */
async function steady(rate: number, seconds: number, send: (marker: string) => Promise<unknown>, prefix: string): Promise<Map<string, number>> {
  const started = new Map<string, number>();
  const total = Math.round(rate * seconds);
  const t0 = now();
  const pending: Array<Promise<unknown>> = [];
  for (let k = 0; k < total; k++) {
    const due = t0 + (k * 1000) / rate;
    const wait = due - now();
    if (wait > 0) await pause(wait);
    const marker = `${prefix}-${k}`;
    started.set(marker, now());
    // A failed call (an overloaded node resets connections) counts as that post's deliveries missing.
    pending.push(send(marker).catch((err: Error) => console.error(`  ${marker} failed: ${err.message}`)));
  }
  await Promise.all(pending);
  return started;
}

function summarise(server: RealtimeRow['server'], rate: number, started: Map<string, number>, arrivals: Record<string, number[]>, subscribed: number): RealtimeRow {
  const latencies: number[] = [];
  for (const [marker, at] of started) for (const arrived of arrivals[marker] ?? []) latencies.push(arrived - at);
  latencies.sort((a, b) => a - b);
  const expected = started.size * subscribed;
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    server,
    rate,
    posts: started.size,
    deliveries: latencies.length,
    missing: expected - latencies.length,
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies[latencies.length - 1] ?? NaN),
  };
}

/** A node in its own process (bench/realtime-node.ts), configured by `env`. */
async function startNode(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'realtime-node.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`a bench node exited with ${code}`)));
  });
  return { child, url };
}

export async function runRealtime(opts: RealtimeOptions): Promise<{ rows: RealtimeRow[]; memory: { service: number; bare: number } }> {
  const gc = exposeGc();
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  await createDatabaseIfMissing(databaseUrl);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-bench-rt-'));
  const baseEnv: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    NODE_ENV: 'production',
    RATE_LIMITS: 'off',
    SOCKET_MAX_CONNECTIONS_PER_IP: String(opts.sockets * 2),
  };
  const adapterKey = `bench-realtime-${crypto.randomUUID()}`;
  const rows: RealtimeRow[] = [];
  const memory = { service: NaN, bare: NaN };
  const heap = () => {
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };

  const clients = new Clients();
  let payload: Record<string, unknown> = {};
  /** `nodes`: URLs of service nodes already running (sockets split evenly, posts to the first); none: one node in this process. */
  const servicePass = async (label: RealtimeRow['server'], nodes: string[] | null) => {
    const server = nodes ? null : await startServer(loadConfig({}, baseEnv), { jobs: false, realtime: { adapterKey } });
    const urls = nodes ?? [server!.url];
    try {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
      const call = (method: string, p: string, body: unknown, token?: string) =>
        new Promise<{ status: number; body: any }>((resolve, reject) => {
          const data = JSON.stringify(body);
          const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)), ...(token ? { authorization: `Bearer ${token}` } : {}) };
          const req = http.request(urls[0] + p, { method, agent, headers }, (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
          });
          req.on('error', reject);
          req.end(data);
        });
      const username = `benchrt_${crypto.randomUUID().slice(0, 8)}`;
      const registered = await call('POST', '/api/auth/register/', { email: `${username}@bench.invalid`, username, display_name: username, password: 'correct-horse-battery' });
      if (registered.status !== 201) throw new Error(`register answered ${registered.status} ${JSON.stringify(registered.body)}`);
      const token = registered.body.access_token as string;
      const placed = await call('POST', '/api/users/update-location/', { country: 'Benchland', city: `Fanout ${crypto.randomUUID().slice(0, 8)}` }, token);
      if (placed.status !== 200) throw new Error(`update-location answered ${placed.status}`);
      const room = { channel: 'location', id: placed.body.location.id as string };

      const before = heap();
      // An even share of the sockets (and of the room) on each node; the posts go to the first.
      for (const [i, url] of urls.entries()) {
        const share = (n: number) => Math.floor(n / urls.length) + (i < n % urls.length ? 1 : 0);
        await clients.connect(url, share(opts.sockets), share(opts.subscribed), room);
      }
      if (server) memory.service = (heap() - before) / opts.sockets;
      const post = async (marker: string) => {
        const res = await call('POST', '/api/feed/posts/', { post_type: 'text', content: marker }, token);
        if (res.status !== 201) throw new Error(`posts.create answered ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        payload = res.body;
      };
      await post('warm-up');
      for (const rate of opts.rates) {
        await clients.record(true);
        const started = await steady(rate, opts.durationSeconds, post, `${label}-${rate}`);
        await pause(2000);
        await clients.record(false);
        const row = summarise(label, rate, started, await clients.collect(), opts.subscribed);
        rows.push(row);
        console.log(`  ${label} ${rate}/s: p50 ${row.p50} ms, p99 ${row.p99} ms, missing ${row.missing}`);
      }
      await clients.close();
      agent.destroy();
    } finally {
      await server?.stop();
    }
  };

  await servicePass('service', null);
  // The bare baseline: Socket.IO alone, the same sockets, room and payload.
  const httpServer = http.createServer();
  const io = new Server(httpServer, { path: '/socket.io/' });
  io.on('connection', (socket) => {
    socket.on('subscribe', (input: { id: string }, ack: (r: unknown) => void) => {
      void socket.join(`sub:location:${input.id}`);
      ack({ status: 200, body: input });
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(httpServer.address() as { port: number }).port}`;
  try {
    const roomId = crypto.randomUUID();
    const before = heap();
    await clients.connect(url, opts.sockets, opts.subscribed, { channel: 'location', id: roomId });
    memory.bare = (heap() - before) / opts.sockets;
    for (const rate of opts.rates) {
      await clients.record(true);
      const started = await steady(rate, opts.durationSeconds, async (marker) => io.to(`sub:location:${roomId}`).emit('post:created', { ...payload, content: marker }), `bare-${rate}`);
      await pause(2000);
      await clients.record(false);
      const row = summarise('bare socket.io', rate, started, await clients.collect(), opts.subscribed);
      rows.push(row);
      console.log(`  bare     ${rate}/s: p50 ${row.p50} ms, p99 ${row.p99} ms, missing ${row.missing}`);
    }
    await clients.close();
    io.close();
    if (opts.redisUrl) {
      // Two nodes, each a process of its own, with the Redis adapter.
      const env = { ...baseEnv, REDIS_URL: opts.redisUrl, BENCH_ADAPTER_KEY: adapterKey };
      const nodes = await Promise.all([startNode(env), startNode(env)]);
      try {
        await servicePass('service, 2 nodes', nodes.map((n) => n.url));
      } finally {
        for (const n of nodes) n.child.kill('SIGTERM');
      }
    }
  } finally {
    await clients.stop();
    io.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  return { rows, memory };
}

export function formatRealtime(result: { rows: RealtimeRow[]; memory: { service: number; bare: number } }, opts: RealtimeOptions): string {
  const lines = [
    `== realtime (${opts.sockets} sockets, ${opts.subscribed} in the room, ${opts.durationSeconds} s per rate)`,
    'server            rate/s  posts  deliveries  missing  p50 ms  p99 ms  max ms  p99 x bare',
  ];
  for (const r of result.rows) {
    const bare = result.rows.find((b) => b.server === 'bare socket.io' && b.rate === r.rate);
    const ratio = bare && r.server !== 'bare socket.io' ? (r.p99 / bare.p99).toFixed(1) : '';
    lines.push(
      `${r.server.padEnd(16)}  ${String(r.rate).padStart(6)}  ${String(r.posts).padStart(5)}  ${String(r.deliveries).padStart(10)}  ${String(r.missing).padStart(7)}  ${String(r.p50).padStart(6)}  ${String(r.p99).padStart(6)}  ${String(r.max).padStart(6)}  ${ratio.padStart(10)}`,
    );
  }
  for (const server of new Set(result.rows.map((r) => r.server))) {
    const within = result.rows.filter((r) => r.server === server && r.p99 < 100 && r.missing === 0).map((r) => r.rate);
    lines.push(`  ${server}: highest rate measured with p99 under 100 ms: ${within.length ? Math.max(...within) + '/s' : 'none of the rates run'}`);
  }
  lines.push(`  memory per idle socket (server heap + external): service ${(result.memory.service / 1024).toFixed(1)} KB, bare Socket.IO ${(result.memory.bare / 1024).toFixed(1)} KB`);
  return lines.join('\n');
}
