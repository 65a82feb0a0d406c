import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import crypto from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createDatabaseIfMissing, DEFAULT_DATABASE_URL } from './lib/harness.js';
import { percentile } from './lib/stats.js';

/**
 * `npm run bench -- realtime`: fan-out of `post:created`. Every party is a process of its own, so that none
 * measures another's CPU or shares its descriptors (each is started with `ulimit -n 65536`):
 * - the service node (bench/realtime-node.ts) and, side by side, a bare Socket.IO server (bench/realtime-bare.mjs)
 *   that broadcasts the same payload to the same room with one `io.to(room).emit` when called over HTTP;
 * - `--client-processes=K` client processes (bench/realtime-clients.mjs) holding `--sockets=N` sockets on each
 *   server (default 10,000), `--subscribed=M` of them (default 1,000) in one location room; by default as many
 *   as keep each under 15,000 descriptors (2 for 10,000 sockets: a hard limit of 20,000 is common, and a
 *   container's root may not raise it);
 * - this process, which makes the REST calls: `POST /api/feed/posts/` on the service, `POST /emit` on the bare
 *   server, at each rate of `--rates=50,100,...` (per second, each call at its own scheduled instant) for
 *   `--duration=S` seconds, the two servers taking turns rate by rate so that both see the same machine.
 * Latency: from the REST call's start (here) to the arrival on every subscribed socket (stamped in the client
 * process; both clocks are performance.timeOrigin + performance.now() on one machine), p50/p99/max and the
 * deliveries missing (not arrived 30 s after the last REST answer; a rate's run ends only once every delivery
 * arrived, so a backlog never spills into the next). CPU of each party over each rate's run, drain included
 * (% of one core), and the load average, are reported with
 * it: on a small machine the clients share the cores with the server, which is why the target is a ratio to the
 * bare baseline (which pays the same client cost). Memory per idle socket: the server process's heap + external
 * after connecting the sockets minus before, over N (after a full GC). `--profile=DIR` writes a CPU profile of the
 * one-node service and of the bare server over each rate's run into DIR (`service-50.cpuprofile`,
 * `bare-socket-io-50.cpuprofile`, ...; both profiled, so both pay its cost; summarise with bench/lib/cpu-profile.ts).
 * Rate limits are off (RATE_LIMITS=off) and the per-address socket cap raised: every socket comes from 127.0.0.1.
 * With REDIS_URL set, the service runs again as two nodes with the Redis adapter, half the sockets and half the
 * room on each, posts made through the first.
 */
export interface RealtimeOptions {
  sockets: number;
  subscribed: number;
  rates: number[];
  durationSeconds: number;
  /** Default: enough that no client process holds more than 15,000 sockets (both servers' sockets count). */
  clientProcesses?: number;
  /** With a Redis URL, the service is measured again on two nodes (half the sockets on each). */
  redisUrl?: string;
  /** Write CPU profiles of the one-node service and the bare server over each rate into this directory. */
  profileDir?: string;
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
  /** CPU over the rate's run, % of one core: the server process(es), the client processes, this process. */
  serverCpu: number;
  clientCpu: number;
  posterCpu: number;
  /** One-minute load average at the end of the rate's run. */
  load: number;
}

export interface RealtimeMemory {
  /** Bytes per idle socket (heap + external). */
  service: number;
  bare: number;
  /** Resident set size per idle socket (bytes), for reference: it also counts the kernel-side buffers' pages. */
  serviceRss: number;
  bareRss: number;
}

const now = () => performance.timeOrigin + performance.now();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const here = path.dirname(fileURLToPath(import.meta.url));
const round = (v: number) => Math.round(v * 10) / 10;

/** A child process with an IPC channel; started through bash to raise its descriptor limit first. */
export class Child {
  readonly proc: ChildProcess;
  readonly exited: Promise<void>;
  constructor(label: string, nodeArgs: string[], env: NodeJS.ProcessEnv) {
    // As root the soft and hard limits both rise; otherwise the soft limit rises to the hard one.
    const raise = 'ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$@"';
    this.proc = spawn('bash', ['-c', raise, label, process.execPath, ...nodeArgs], { env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    this.exited = new Promise((resolve) => this.proc.once('exit', () => resolve()));
  }
  /** Resolves with the first match of `pattern` on the child's stdout; rejects if it exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      let out = '';
      this.proc.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = pattern.exec(out);
        if (m) resolve(m);
      });
      this.proc.once('exit', (code) => reject(new Error(`a bench process exited with ${code} before printing ${pattern}`)));
    });
  }
  ask<T>(msg: Record<string, unknown>, reply: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const onMessage = (m: { cmd: string }) => {
        if (m.cmd !== reply) return;
        this.proc.off('message', onMessage);
        this.proc.off('exit', onExit);
        resolve(m as T);
      };
      const onExit = (code: number) => reject(new Error(`a bench process exited with ${code} while asked ${String(msg.cmd)}`));
      this.proc.on('message', onMessage);
      this.proc.once('exit', onExit);
      this.proc.send(msg);
    });
  }
  async stop() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
    await this.exited;
  }
}

/** A server (service node or bare) in its own process; prints `listening URL`, answers `memory` and `cpu`. */
export async function startServerProcess(label: string, nodeArgs: string[], env: NodeJS.ProcessEnv): Promise<{ child: Child; url: string }> {
  const child = new Child(label, ['--expose-gc', ...nodeArgs], env);
  const url = (await child.waitFor(/listening (\S+)/))[1];
  return { child, url };
}

const memoryOf = (server: Child) => server.ask<{ bytes: number; rss: number }>({ cmd: 'memory' }, 'memory');
export const cpuOf = async (servers: Child[], reset: boolean) => (await Promise.all(servers.map((s) => s.ask<{ cpuMs: number }>({ cmd: 'cpu', reset }, 'cpu')))).reduce((a, r) => a + r.cpuMs, 0);

/** The client processes; each socket batch is split evenly between them. */
export class Clients {
  private procs: Child[] = [];
  async start(count: number) {
    for (let i = 0; i < count; i++) {
      const child = new Child(`bench-clients-${i}`, [path.join(here, 'realtime-clients.mjs')], process.env);
      await new Promise<void>((resolve) => child.proc.once('message', () => resolve()));
      this.procs.push(child);
    }
  }
  /** Sockets on `url`, each subscribed to its own room of `rooms` (split between the client processes in order). */
  async connectRooms(url: string, rooms: Array<{ channel: string; id: string }>) {
    const k = this.procs.length;
    const size = Math.ceil(rooms.length / k);
    const results = await Promise.all(
      this.procs.map((p, i) => {
        const mine = rooms.slice(i * size, (i + 1) * size);
        return p.ask<{ failed: number; firstError?: string }>({ cmd: 'connect', url, count: mine.length, subscribed: mine.length, rooms: mine }, 'connected');
      }),
    );
    const failed = results.reduce((a, r) => a + r.failed, 0);
    if (failed) throw new Error(`${failed} of ${rooms.length} sockets failed to connect or subscribe: ${results.find((r) => r.firstError)?.firstError}`);
  }
  async connect(url: string, count: number, subscribed: number, subscribe: { channel: string; id: string }) {
    const k = this.procs.length;
    const share = (n: number, i: number) => Math.floor(n / k) + (i < n % k ? 1 : 0);
    const results = await Promise.all(
      this.procs.map((p, i) => p.ask<{ failed: number; firstError?: string }>({ cmd: 'connect', url, count: share(count, i), subscribed: share(subscribed, i), subscribe }, 'connected')),
    );
    const failed = results.reduce((a, r) => a + r.failed, 0);
    if (failed) throw new Error(`${failed} of ${count} sockets failed to connect or subscribe: ${results.find((r) => r.firstError)?.firstError}`);
  }
  /** Start or stop recording arrivals; on stop, answers the CPU time the client processes used meanwhile (ms). */
  async record(on: boolean): Promise<number> {
    const replies = await Promise.all(this.procs.map((p) => p.ask<{ cpuMs: number }>({ cmd: 'record', on }, 'recording')));
    return replies.reduce((a, r) => a + r.cpuMs, 0);
  }
  /** Arrivals recorded so far, over every client process. */
  async count(): Promise<number> {
    const replies = await Promise.all(this.procs.map((p) => p.ask<{ arrivals: number }>({ cmd: 'count' }, 'counted')));
    return replies.reduce((a, r) => a + r.arrivals, 0);
  }
  async collect(): Promise<Record<string, number[]>> {
    const merged: Record<string, number[]> = {};
    for (const p of this.procs) {
      const { arrivals } = await p.ask<{ arrivals: Record<string, number[]> }>({ cmd: 'collect' }, 'collected');
      for (const [marker, times] of Object.entries(arrivals)) (merged[marker] ??= []).push(...times);
    }
    return merged;
  }
  async close() {
    await Promise.all(this.procs.map((p) => p.ask({ cmd: 'close' }, 'closed')));
  }
  async stop() {
    await Promise.all(this.procs.map((p) => p.stop()));
    this.procs = [];
  }
}

/** Send `rate` per second for `seconds`, each at its own scheduled instant; answers marker -> start time. */
export async function steady(rate: number, seconds: number, send: (marker: string) => Promise<unknown>, prefix: string): Promise<Map<string, number>> {
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

/** The text a post carries: the client processes find the marker between `~rtb:` and `~` in the raw frame. */
export const content = (marker: string) => `~rtb:${marker}~`;

type Json = { status: number; body: any };
/**
 * JSON over keep-alive connections. `fresh()` before each rate's run: a connection left idle longer than the
 * server's keep-alive timeout (5 s, while the other server's run went on) may be closed just as a call reuses it.
 */
export function jsonClient(base: string) {
  let agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const call = (method: string, p: string, body: unknown, token?: string) =>
    new Promise<Json>((resolve, reject) => {
      const data = JSON.stringify(body);
      const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)), ...(token ? { authorization: `Bearer ${token}` } : {}) };
      const req = http.request(base + p, { method, agent, headers }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
      });
      req.on('error', reject);
      req.end(data);
    });
  const fresh = () => {
    agent.destroy();
    agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  };
  return { call, fresh, close: () => agent.destroy() };
}

interface Target {
  label: RealtimeRow['server'];
  servers: Child[];
  /** One REST call that makes the server broadcast `content(marker)` to the room. */
  send: (marker: string) => Promise<void>;
  /** New connections for the calls (see jsonClient). */
  fresh: () => void;
}

export async function runRealtime(opts: RealtimeOptions): Promise<{ rows: RealtimeRow[]; memory: RealtimeMemory }> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  await createDatabaseIfMissing(databaseUrl);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-bench-rt-'));
  const { REDIS_URL: _redis, ...inherited } = process.env;
  const baseEnv: NodeJS.ProcessEnv = {
    ...inherited,
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
  const nodeArgs = ['--import', 'tsx', path.join(here, 'realtime-node.ts')];
  const rows: RealtimeRow[] = [];
  const memory: RealtimeMemory = { service: NaN, bare: NaN, serviceRss: NaN, bareRss: NaN };
  const clients = new Clients();
  const started: Child[] = [];
  const closers: Array<() => void> = [];

  /** The service on `urls` (sockets split evenly, posts to the first): an author who lives in a fresh location. */
  const prepareService = async (label: RealtimeRow['server'], servers: Child[], urls: string[]): Promise<{ target: Target; room: { channel: string; id: string }; payload: unknown }> => {
    const api = jsonClient(urls[0]);
    closers.push(api.close);
    const username = `benchrt_${crypto.randomUUID().slice(0, 8)}`;
    const registered = await api.call('POST', '/api/auth/register/', { email: `${username}@bench.invalid`, username, display_name: username, password: 'correct-horse-battery' });
    if (registered.status !== 201) throw new Error(`register answered ${registered.status} ${JSON.stringify(registered.body)}`);
    const token = registered.body.access_token as string;
    const placed = await api.call('POST', '/api/users/update-location/', { country: 'Benchland', city: `Fanout ${crypto.randomUUID().slice(0, 8)}` }, token);
    if (placed.status !== 200) throw new Error(`update-location answered ${placed.status}`);
    let payload: unknown = null;
    const send = async (marker: string) => {
      const res = await api.call('POST', '/api/feed/posts/', { post_type: 'text', content: content(marker) }, token);
      if (res.status !== 201) throw new Error(`posts.create answered ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      payload ??= res.body;
    };
    await send('warm-up');
    return { target: { label, servers, send, fresh: api.fresh }, room: { channel: 'location', id: placed.body.location.id as string }, payload };
  };

  /** Connect the sockets (an even share of them and of the room on each URL); answers the server memory it took. */
  const connectAll = async (servers: Child[], urls: string[], room: { channel: string; id: string }) => {
    const before = await Promise.all(servers.map(memoryOf));
    for (const [i, url] of urls.entries()) {
      const share = (n: number) => Math.floor(n / urls.length) + (i < n % urls.length ? 1 : 0);
      await clients.connect(url, share(opts.sockets), share(opts.subscribed), room);
    }
    const after = await Promise.all(servers.map(memoryOf));
    const sum = (list: Array<{ bytes: number; rss: number }>, key: 'bytes' | 'rss') => list.reduce((a, m) => a + m[key], 0);
    return { bytes: (sum(after, 'bytes') - sum(before, 'bytes')) / opts.sockets, rss: (sum(after, 'rss') - sum(before, 'rss')) / opts.sockets };
  };

  const measure = async (target: Target, rate: number) => {
    target.fresh();
    const posterCpuAtStart = process.cpuUsage();
    const wallAtStart = performance.now();
    const profile = opts.profileDir && target.servers.length === 1 ? { file: path.join(opts.profileDir, `${target.label.replace(/\W+/g, '-')}-${rate}.cpuprofile`) } : null;
    if (profile) await target.servers[0].ask({ cmd: 'profile', on: true }, 'profiled');
    await cpuOf(target.servers, true);
    await clients.record(true);
    const sent = await steady(rate, opts.durationSeconds, target.send, `${target.label.replace(/\W+/g, '_')}-${rate}`);
    // Until every delivery has arrived (at most 30 s more), so that a backlog never spills into the next run.
    const expected = sent.size * opts.subscribed;
    for (const deadline = now() + 30_000; now() < deadline && (await clients.count()) < expected; ) await pause(100);
    await pause(500);
    const clientMs = await clients.record(false);
    const serverMs = await cpuOf(target.servers, false);
    if (profile) await target.servers[0].ask({ cmd: 'profile', on: false, file: profile.file }, 'profiled');
    const wall = performance.now() - wallAtStart;
    const poster = process.cpuUsage(posterCpuAtStart);
    const arrivals = await clients.collect();
    const latencies: number[] = [];
    for (const [marker, at] of sent) for (const arrived of arrivals[marker] ?? []) latencies.push(arrived - at);
    latencies.sort((a, b) => a - b);
    const pct = (ms: number) => Math.round((100 * ms) / wall);
    const row: RealtimeRow = {
      server: target.label,
      rate,
      posts: sent.size,
      deliveries: latencies.length,
      missing: sent.size * opts.subscribed - latencies.length,
      p50: round(percentile(latencies, 50)),
      p99: round(percentile(latencies, 99)),
      max: round(latencies[latencies.length - 1] ?? NaN),
      serverCpu: pct(serverMs),
      clientCpu: pct(clientMs),
      posterCpu: pct((poster.user + poster.system) / 1000),
      load: round(os.loadavg()[0]),
    };
    rows.push(row);
    console.log(
      `  ${row.server.padEnd(16)} ${rate}/s: p50 ${row.p50} ms, p99 ${row.p99} ms, missing ${row.missing}; CPU server ${row.serverCpu} %, clients ${row.clientCpu} %, poster ${row.posterCpu} %; load ${row.load}`,
    );
  };

  try {
    await clients.start(clientProcessesFor(opts));
    // One service node (no Redis) and the bare server, side by side; the rates alternate between them.
    const node = await startServerProcess('bench-node', nodeArgs, baseEnv);
    started.push(node.child);
    const bare = await startServerProcess('bench-bare', [path.join(here, 'realtime-bare.mjs')], baseEnv);
    started.push(bare.child);
    const service = await prepareService('service', [node.child], [node.url]);
    await bare.child.ask({ cmd: 'payload', payload: service.payload }, 'payload set');
    const bareRoom = { channel: 'location', id: crypto.randomUUID() };
    const bareApi = jsonClient(bare.url);
    closers.push(bareApi.close);
    const bareTarget: Target = {
      label: 'bare socket.io',
      servers: [bare.child],
      fresh: bareApi.fresh,
      send: async (marker) => {
        const res = await bareApi.call('POST', '/emit', { room: `sub:location:${bareRoom.id}`, content: content(marker) });
        if (res.status !== 201) throw new Error(`the bare server answered ${res.status}`);
      },
    };
    const serviceMemory = await connectAll([node.child], [node.url], service.room);
    const bareMemory = await connectAll([bare.child], [bare.url], bareRoom);
    Object.assign(memory, { service: serviceMemory.bytes, serviceRss: serviceMemory.rss, bare: bareMemory.bytes, bareRss: bareMemory.rss });
    await bareTarget.send('warm-up');
    for (const rate of opts.rates) {
      await measure(service.target, rate);
      await measure(bareTarget, rate);
    }
    await clients.close();
    await Promise.all([node.child.stop(), bare.child.stop()]);

    if (opts.redisUrl) {
      // Two nodes, each a process of its own, with the Redis adapter.
      const env = { ...baseEnv, REDIS_URL: opts.redisUrl, BENCH_ADAPTER_KEY: adapterKey };
      const nodes = await Promise.all([startServerProcess('bench-node-1', nodeArgs, env), startServerProcess('bench-node-2', nodeArgs, env)]);
      started.push(...nodes.map((n) => n.child));
      const servers = nodes.map((n) => n.child);
      const urls = nodes.map((n) => n.url);
      const two = await prepareService('service, 2 nodes', servers, urls);
      await connectAll(servers, urls, two.room);
      for (const rate of opts.rates) await measure(two.target, rate);
      await clients.close();
    }
  } finally {
    for (const close of closers) close();
    await clients.stop();
    await Promise.all(started.map((c) => c.stop()));
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  return { rows, memory };
}

export const clientProcessesFor = (opts: RealtimeOptions) => opts.clientProcesses ?? Math.max(1, Math.ceil((2 * opts.sockets) / 15_000));

export function formatRealtime(result: { rows: RealtimeRow[]; memory: RealtimeMemory }, opts: RealtimeOptions): string {
  const lines = [
    `== realtime (${opts.sockets} sockets, ${opts.subscribed} in the room, ${opts.durationSeconds} s per rate, ${clientProcessesFor(opts)} client process${clientProcessesFor(opts) === 1 ? '' : 'es'}, ${os.cpus().length} cores)`,
    'server            rate/s  posts  deliveries  missing  p50 ms  p99 ms  max ms  p50 x bare  p99 x bare  CPU % server/clients/poster  load',
  ];
  for (const r of result.rows) {
    const bare = result.rows.find((b) => b.server === 'bare socket.io' && b.rate === r.rate);
    const ratio = (k: 'p50' | 'p99') => (bare && r.server !== 'bare socket.io' ? (r[k] / bare[k]).toFixed(r[k] < bare[k] ? 2 : 1) : '');
    lines.push(
      `${r.server.padEnd(16)}  ${String(r.rate).padStart(6)}  ${String(r.posts).padStart(5)}  ${String(r.deliveries).padStart(10)}  ${String(r.missing).padStart(7)}  ${String(r.p50).padStart(6)}  ${String(r.p99).padStart(6)}  ${String(r.max).padStart(6)}  ${ratio('p50').padStart(10)}  ${ratio('p99').padStart(10)}  ${`${r.serverCpu}/${r.clientCpu}/${r.posterCpu}`.padStart(27)}  ${String(r.load).padStart(4)}`,
    );
  }
  for (const server of new Set(result.rows.map((r) => r.server))) {
    const within = result.rows.filter((r) => r.server === server && r.p99 < 100 && r.missing === 0).map((r) => r.rate);
    lines.push(`  ${server}: highest rate measured with p99 under 100 ms: ${within.length ? Math.max(...within) + '/s' : 'none of the rates run'}`);
  }
  const kb = (b: number) => (b / 1024).toFixed(1);
  lines.push(
    `  memory per idle socket (server heap + external): service ${kb(result.memory.service)} KB, bare Socket.IO ${kb(result.memory.bare)} KB (RSS: ${kb(result.memory.serviceRss)} KB, ${kb(result.memory.bareRss)} KB)`,
  );
  return lines.join('\n');
}
