import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import crypto from 'node:crypto';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createDatabaseIfMissing, DEFAULT_DATABASE_URL } from './lib/harness.js';
import { percentile } from './lib/stats.js';
import { Child, Clients, content, jsonClient, startServerProcess, steady } from './realtime.js';

/**
 * `npm run bench -- cluster` (issue 39, step 1): the fan-out cost model's measurements. `--nodes=N` service nodes,
 * each a process of its own, with the Redis adapter `--adapter=classic|sharded`, on `--database=server` (PostgreSQL at
 * BENCH_DATABASE_URL) or `embedded` (the first node's embedded database; the other nodes reach it through its unix
 * socket: a bench arrangement, fine here because only the first node writes, see docs/deployment.md), posts made
 * through the first node's REST API at each of `--rates` for `--duration` seconds.
 *
 * Scenarios (`--scenario`):
 * - `room`: one busy location room, `--subscribed` sockets in it (default 1,000) spread evenly over the nodes
 *   (`--layout=spread`), or all on the first node (`--layout=first`: the other nodes have nothing to write and only
 *   receive from Redis, which isolates a received message's cost);
 * - `city`: `--rooms` location rooms (default 4,000), each with `--room-size` sockets (default 2), all on one node
 *   with the rooms alternating between the nodes (`--layout=grouped`: each node serves half of the rooms, which shows
 *   what the sharded adapter spares a node) or each room's sockets placed round the nodes (`--layout=spread`), posts
 *   going round the rooms (one author living in each).
 *
 * Per node over each rate's run (drain included): CPU time (process.cpuUsage in the node, in microseconds), the
 * socket writes it delivered (the room's sockets on that node for each post, every post having arrived), and its
 * Redis traffic counted in the node on ioredis (PUBLISH/SPUBLISH sent, pub/sub messages received, with bytes; no
 * MONITOR), cross-checked against Redis's own INFO commandstats and total_net_output_bytes. The CPU a node spends
 * idle (timers, outbox polls) is measured over 3 s before the first rate and reported apart. Latency (REST call
 * start to arrival, p50/p99) is printed too, but on a loaded machine it measures the load; CPU per unit does not.
 *
 * Redis: REDIS_URL, or `--redis-server=PATH` starts that redis-server (the pack's) on a free loopback port.
 */
export interface ClusterOptions {
  nodes: number;
  /** none: one node without Redis (the baseline a published and a received message are measured against). */
  adapter: 'classic' | 'sharded' | 'none';
  database: 'server' | 'embedded';
  scenario: 'room' | 'city';
  layout: 'spread' | 'first' | 'grouped';
  subscribed: number;
  rooms: number;
  roomSize: number;
  rates: number[];
  durationSeconds: number;
  clientProcesses: number;
  redisUrl?: string;
  redisServer?: string;
}

export interface NodeFigures {
  node: number;
  cpuUs: number;
  writes: number;
  published: number;
  publishedBytes: number;
  received: number;
  receivedBytes: number;
}

export interface ClusterRow {
  nodes: number;
  adapter: string;
  database: string;
  scenario: string;
  layout: string;
  rate: number;
  posts: number;
  deliveries: number;
  missing: number;
  p50: number;
  p99: number;
  seconds: number;
  /** Idle CPU per node, microseconds a second (measured before the first rate). */
  idleUsPerSecond: number[];
  perNode: NodeFigures[];
  redis: { publishCalls: number; spublishCalls: number; netOutputBytes: number; netInputBytes: number };
  load: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const now = () => performance.timeOrigin + performance.now();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The service node's command line: the pack's bundle when this file runs from the pack, else tsx and the tree. */
function nodeArgs(): string[] {
  const packed = path.join(here, 'realtime-node.mjs');
  return fs.existsSync(packed) ? [packed] : ['--import', 'tsx', path.join(here, 'realtime-node.ts')];
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A RESP client of one command at a time, enough for INFO (no dependency, so the parent bundle stays small). */
async function redisInfo(url: string, section: string): Promise<Record<string, string>> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port || 6379), hostname || '127.0.0.1');
  socket.write(`*2\r\n$4\r\nINFO\r\n$${section.length}\r\n${section}\r\n`);
  let text = '';
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      const m = /^\$(\d+)\r\n/.exec(text);
      if (m && text.length >= m[0].length + Number(m[1])) resolve();
    });
    socket.on('error', reject);
  });
  socket.destroy();
  const fields: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0) fields[line.slice(0, at)] = line.slice(at + 1);
  }
  return fields;
}

async function redisTotals(url: string) {
  const stats = await redisInfo(url, 'all');
  const calls = (name: string) => Number(/calls=(\d+)/.exec(stats[`cmdstat_${name}`] ?? '')?.[1] ?? 0);
  return { publishCalls: calls('publish'), spublishCalls: calls('spublish'), netOutputBytes: Number(stats.total_net_output_bytes ?? 0), netInputBytes: Number(stats.total_net_input_bytes ?? 0) };
}

async function startRedis(binary: string): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const dir = path.dirname(binary);
  // The pack carries the libraries redis-server was linked with, and the loader that goes with them.
  const loader = path.join(dir, 'ld-linux-x86-64.so.2');
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'];
  const proc = fs.existsSync(loader)
    ? spawn(loader, ['--library-path', path.join(dir, 'lib'), binary, ...args], { stdio: ['ignore', 'ignore', 'inherit'] })
    : spawn(binary, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (await redisInfo(url, 'server').then(() => true, () => false)) return { url, proc };
    await pause(100);
  }
  proc.kill();
  throw new Error(`redis-server (${binary}) did not start`);
}

export async function runCluster(opts: ClusterOptions): Promise<ClusterRow[]> {
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'hl-cluster-'));
  const started: Child[] = [];
  const clients = new Clients();
  let redisProc: ChildProcess | null = null;
  const rows: ClusterRow[] = [];
  try {
    let redisUrl = opts.redisUrl;
    if (opts.redisServer) {
      const redis = await startRedis(opts.redisServer);
      redisProc = redis.proc;
      redisUrl = redis.url;
    }
    if (!redisUrl && opts.adapter !== 'none') throw new Error('the cluster bench needs Redis: REDIS_URL or --redis-server=PATH');
    if (opts.adapter === 'none' && opts.nodes !== 1) throw new Error('--adapter=none runs one node');
    const sockets = opts.scenario === 'room' ? opts.subscribed : opts.rooms * opts.roomSize;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      NODE_ENV: 'production',
      RATE_LIMITS: 'off',
      SOCKET_MAX_CONNECTIONS_PER_IP: String(sockets * 2 + 100),
      REDIS_URL: opts.adapter === 'none' ? '' : redisUrl,
      REDIS_ADAPTER: opts.adapter === 'none' ? 'classic' : opts.adapter,
      BENCH_ADAPTER_KEY: `bench-cluster-${crypto.randomUUID()}`,
      JWT_SECRET: crypto.randomBytes(32).toString('hex'),
      // A city's authors register in bulk: cheap password hashes (the bench never logs in again).
      PASSWORD_HASH_MEMORY_KIB: '1024',
      PASSWORD_HASH_PASSES: '1',
    };
    let databaseUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_DATABASE_URL;
    if (opts.database === 'server') await createDatabaseIfMissing(databaseUrl);
    const servers: Array<{ child: Child; url: string }> = [];
    for (let i = 0; i < opts.nodes; i++) {
      const dataDir = path.join(tmp, `node${i + 1}`, 'data');
      await fsp.mkdir(dataDir, { recursive: true });
      const nodeEnv: NodeJS.ProcessEnv = { ...env, DATA_DIR: dataDir };
      if (opts.database === 'embedded') {
        if (i === 0) delete nodeEnv.DATABASE_URL;
        // The first node's embedded database listens on a unix socket beside its DATA_DIR.
        else nodeEnv.DATABASE_URL = databaseUrl;
      } else nodeEnv.DATABASE_URL = databaseUrl;
      const server = await startServerProcess(`bench-cluster-node-${i + 1}`, nodeArgs(), nodeEnv);
      started.push(server.child);
      servers.push(server);
      if (opts.database === 'embedded' && i === 0) databaseUrl = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dataDir)}`;
    }
    await clients.start(opts.clientProcesses);

    // Authors (one per room), each living in a location of their own: the room is that location's.
    const api = jsonClient(servers[0].url);
    const authorCount = opts.scenario === 'room' ? 1 : opts.rooms;
    const authors: Array<{ token: string; locationId: string }> = [];
    const makeAuthor = async () => {
      const username = `benchcl_${crypto.randomUUID().slice(0, 12)}`;
      const reg = await api.call('POST', '/api/auth/register/', { email: `${username}@bench.invalid`, username, display_name: username, password: 'correct-horse-battery' });
      if (reg.status !== 201) throw new Error(`register answered ${reg.status} ${JSON.stringify(reg.body)}`);
      const token = reg.body.access_token as string;
      const placed = await api.call('POST', '/api/users/update-location/', { country: 'Benchland', city: `Cluster ${crypto.randomUUID().slice(0, 12)}` }, token);
      if (placed.status !== 200) throw new Error(`update-location answered ${placed.status}`);
      authors.push({ token, locationId: placed.body.location.id as string });
    };
    for (let i = 0; i < authorCount; i += 16) await Promise.all(Array.from({ length: Math.min(16, authorCount - i) }, makeAuthor));

    // Sockets: `placement[r][k]` = the sockets of room r on node k.
    const placement: number[][] = authors.map(() => Array(opts.nodes).fill(0));
    const perNodeRooms: Array<Array<{ channel: string; id: string }>> = servers.map(() => []);
    if (opts.scenario === 'room') {
      for (let j = 0; j < opts.subscribed; j++) {
        const k = opts.layout === 'first' ? 0 : j % opts.nodes;
        placement[0][k]++;
        perNodeRooms[k].push({ channel: 'location', id: authors[0].locationId });
      }
    } else {
      authors.forEach((a, r) => {
        for (let j = 0; j < opts.roomSize; j++) {
          // grouped: a room's sockets all on one node (rooms alternate); spread: a room's sockets round the nodes.
          const k = opts.layout === 'grouped' ? r % opts.nodes : (r + j) % opts.nodes;
          placement[r][k]++;
          perNodeRooms[k].push({ channel: 'location', id: a.locationId });
        }
      });
    }
    for (const [k, rooms] of perNodeRooms.entries()) if (rooms.length) await clients.connectRooms(servers[k].url, rooms);
    const expectedPerPost = (r: number) => placement[r].reduce((a, b) => a + b, 0);

    const counters = (reset: boolean) =>
      Promise.all(servers.map((s) => s.child.ask<{ cpuUs: number; published: number; publishedBytes: number; received: number; receivedBytes: number }>({ cmd: 'counters', reset }, 'counters')));
    // Idle CPU (poll timers, the outbox's polls), subtracted by the model.
    await api.call('POST', '/api/feed/posts/', { post_type: 'text', content: 'warm-up' }, authors[0].token);
    await pause(1000);
    await counters(true);
    const idleStart = performance.now();
    await pause(3000);
    const idle = await counters(false);
    const idleSeconds = (performance.now() - idleStart) / 1000;
    const idleUsPerSecond = idle.map((c) => Math.round(c.cpuUs / idleSeconds));

    for (const rate of opts.rates) {
      api.fresh();
      const roomOf = new Map<string, number>();
      let next = 0;
      const send = async (marker: string) => {
        const r = next++ % authors.length;
        roomOf.set(marker, r);
        const res = await api.call('POST', '/api/feed/posts/', { post_type: 'text', content: content(marker) }, authors[r].token);
        if (res.status !== 201) throw new Error(`posts.create answered ${res.status}`);
      };
      const noRedis = { publishCalls: 0, spublishCalls: 0, netOutputBytes: 0, netInputBytes: 0 };
      const redisBefore = redisUrl ? await redisTotals(redisUrl) : noRedis;
      await counters(true);
      await clients.record(true);
      const wallStart = performance.now();
      const sent = await steady(rate, opts.durationSeconds, send, `cl-${rate}`);
      let expected = 0;
      for (const marker of sent.keys()) expected += expectedPerPost(roomOf.get(marker)!);
      for (const deadline = now() + 30_000; now() < deadline && (await clients.count()) < expected; ) await pause(100);
      await pause(500);
      const figures = await counters(false);
      const seconds = (performance.now() - wallStart) / 1000;
      await clients.record(false);
      const redisAfter = redisUrl ? await redisTotals(redisUrl) : noRedis;
      const arrivals = await clients.collect();
      const latencies: number[] = [];
      for (const [marker, at] of sent) for (const arrived of arrivals[marker] ?? []) latencies.push(arrived - at);
      latencies.sort((a, b) => a - b);
      const writes = servers.map((_, k) => [...sent.keys()].reduce((a, m) => a + placement[roomOf.get(m)!][k], 0));
      const row: ClusterRow = {
        nodes: opts.nodes,
        adapter: opts.adapter,
        database: opts.database,
        scenario: opts.scenario === 'room' ? `room of ${opts.subscribed}` : `city of ${opts.rooms} rooms x ${opts.roomSize}`,
        layout: opts.layout,
        rate,
        posts: sent.size,
        deliveries: latencies.length,
        missing: expected - latencies.length,
        p50: Math.round(percentile(latencies, 50) * 10) / 10,
        p99: Math.round(percentile(latencies, 99) * 10) / 10,
        seconds: Math.round(seconds * 10) / 10,
        idleUsPerSecond,
        perNode: figures.map((f, k) => ({ node: k + 1, cpuUs: f.cpuUs, writes: writes[k], published: f.published, publishedBytes: f.publishedBytes, received: f.received, receivedBytes: f.receivedBytes })),
        redis: {
          publishCalls: redisAfter.publishCalls - redisBefore.publishCalls,
          spublishCalls: redisAfter.spublishCalls - redisBefore.spublishCalls,
          netOutputBytes: redisAfter.netOutputBytes - redisBefore.netOutputBytes,
          netInputBytes: redisAfter.netInputBytes - redisBefore.netInputBytes,
        },
        load: Math.round(os.loadavg()[0] * 10) / 10,
      };
      rows.push(row);
      console.log(formatClusterRow(row));
    }
    api.close();
    await clients.close();
  } finally {
    await clients.stop();
    await Promise.all(started.map((c) => c.stop()));
    redisProc?.kill();
    await fsp.rm(tmp, { recursive: true, force: true });
  }
  return rows;
}

/** One rate's run: per node, CPU per post and per unit after the idle CPU, and the Redis traffic per post. */
export function formatClusterRow(r: ClusterRow): string {
  const lines = [
    `== ${r.nodes} nodes, ${r.adapter}, ${r.database} database, ${r.scenario} (${r.layout}), ${r.rate} posts/s: ${r.posts} posts, ${r.deliveries} deliveries, ${r.missing} missing, p50 ${r.p50} ms, p99 ${r.p99} ms (wall clock: load ${r.load}); Redis saw ${r.redis.publishCalls} PUBLISH + ${r.redis.spublishCalls} SPUBLISH, sent ${(r.redis.netOutputBytes / r.posts).toFixed(0)} B/post`,
    '  node  CPU us/post (idle off)  writes/post  published/post  B/post  received/post  B/post  idle us/s',
  ];
  for (const n of r.perNode) {
    const busy = n.cpuUs - r.idleUsPerSecond[n.node - 1] * r.seconds;
    lines.push(
      `  ${String(n.node).padStart(4)}  ${(busy / r.posts).toFixed(0).padStart(22)}  ${(n.writes / r.posts).toFixed(1).padStart(11)}  ${(n.published / r.posts).toFixed(2).padStart(14)}  ${(n.publishedBytes / r.posts).toFixed(0).padStart(6)}  ${(n.received / r.posts).toFixed(2).padStart(13)}  ${(n.receivedBytes / r.posts).toFixed(0).padStart(6)}  ${String(r.idleUsPerSecond[n.node - 1]).padStart(9)}`,
    );
  }
  return lines.join('\n');
}

export function parseClusterArgs(argv: string[]): ClusterOptions {
  // The last of a flag given twice wins (the pack's run.sh puts its defaults first).
  const flag = (name: string) => [...argv].reverse().find((a) => a.startsWith(`--${name}=`))?.split('=').slice(1).join('=');
  const num = (name: string, d: number) => (flag(name) === undefined ? d : Number(flag(name)));
  const pick = <T extends string>(name: string, allowed: readonly T[], d: T): T => {
    const v = (flag(name) ?? d) as T;
    if (!allowed.includes(v)) throw new Error(`--${name} must be one of ${allowed.join(', ')}`);
    return v;
  };
  const scenario = pick('scenario', ['room', 'city'] as const, 'room');
  const rooms = num('rooms', 4000);
  const roomSize = num('room-size', 2);
  const subscribed = num('subscribed', 1000);
  const sockets = scenario === 'room' ? subscribed : rooms * roomSize;
  return {
    nodes: num('nodes', 2),
    adapter: pick('adapter', ['classic', 'sharded', 'none'] as const, 'classic'),
    database: pick('database', ['server', 'embedded'] as const, 'server'),
    scenario,
    layout: pick('layout', ['spread', 'first', 'grouped'] as const, scenario === 'room' ? 'spread' : 'grouped'),
    subscribed,
    rooms,
    roomSize,
    rates: (flag('rates') ?? '20').split(',').map(Number),
    durationSeconds: num('duration', 10),
    clientProcesses: num('client-processes', Math.max(1, Math.ceil(sockets / 15_000))),
    redisUrl: process.env.REDIS_URL,
    redisServer: flag('redis-server'),
  };
}
