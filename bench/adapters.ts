import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import { clusterAdapter, type AdapterKind } from '../src/realtime/adapter.js';

/**
 * `npm run bench -- adapters`: what each node of a two-node cluster receives from Redis when events are pushed
 * to many rooms, under the classic adapter (one channel: every node receives and decodes every broadcast) and
 * the sharded one (a channel per room a node serves; a broadcast to several rooms at once still goes to the
 * shared channel).
 *
 * Two Socket.IO servers in this process, each with the service's own adapter set-up (src/realtime/adapter.ts),
 * against the real Redis. Rooms are filled without client sockets (the adapter's own room bookkeeping), so
 * the figures are the adapters' traffic alone. Audiences, pushed as the service pushes them (event-routes.ts):
 * - `location`: `location:updated` to a location's two rooms (`sub:location:<id>`, `residents:<id>`) in one emit;
 * - `user`: `notification:created` to one `user:<id>` room.
 * Layouts: `split` (each room has sockets on one node only: a user's one device, a neighbourhood whose clients
 * landed on one node), `both` (every room has sockets on both nodes: busy rooms). Node A pushes a ~900-byte
 * body to every room `--events=N` times (default 5); `--rooms=N` rooms of each audience (default 2000).
 */
const PAYLOAD = { id: crypto.randomUUID(), name: 'Somewhere', description: 'x'.repeat(700), latitude: -49.9575, longitude: -134.507459, total_users: 42, confidence_score: 0.73 };

interface NodeCounts {
  messages: number;
  bytes: number;
}

export interface AdapterRow {
  audience: 'location' | 'user';
  adapter: AdapterKind;
  layout: 'split' | 'both';
  rooms: number;
  events: number;
  nodeA: NodeCounts;
  nodeB: NodeCounts;
  /** Broadcasts each node had sockets for: the useful part of what it received. */
  usefulPerNode: number;
  /** Channels the two nodes subscribe to in Redis (sharded: one per room). */
  channels: number;
  ms: number;
}

async function runOne(redisUrl: string, audience: 'location' | 'user', adapter: AdapterKind, layout: 'split' | 'both', targets: number, eventsPerRoom: number): Promise<AdapterRow> {
  const key = `bench-adapters-${crypto.randomUUID()}`;
  const base = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  const nodes = [0, 1].map(() => {
    const cluster = clusterAdapter(base, adapter, key);
    const io = new Server({ adapter: cluster.factory });
    const counts: NodeCounts = { messages: 0, bytes: 0 };
    const count = (_channel: Buffer, message: Buffer) => {
      counts.messages++;
      counts.bytes += message.length;
    };
    cluster.sub.on('messageBuffer', count);
    cluster.sub.on('smessageBuffer', count);
    cluster.sub.on('pmessageBuffer', (_pattern: Buffer, channel: Buffer, message: Buffer) => count(channel, message));
    return { io, cluster, counts };
  });
  const roomsOf = (id: string) => (audience === 'location' ? [`sub:location:${id}`, `residents:${id}`] : [`user:${id}`]);
  const ids = Array.from({ length: targets }, () => crypto.randomUUID());
  ids.forEach((id, i) => {
    const hosts = layout === 'both' ? nodes : [nodes[i % 2]];
    for (const node of hosts) node.io.of('/').adapter.addAll(`fake-socket-${id}`, new Set(roomsOf(id)));
  });
  // Let the (S)SUBSCRIBEs of the rooms reach Redis before measuring.
  await settle(nodes.map((n) => n.cluster.sub), 300);
  for (const node of nodes) Object.assign(node.counts, { messages: 0, bytes: 0 });
  const channels = Number(((await base.call('PUBSUB', 'SHARDCHANNELS', `${key}*`)) as string[]).length) + Number(((await base.call('PUBSUB', 'CHANNELS', `${key}*`)) as string[]).length);

  const event = audience === 'location' ? 'location:updated' : 'notification:created';
  const started = performance.now();
  for (let round = 0; round < eventsPerRoom; round++) {
    for (const id of ids) nodes[0].io.to(roomsOf(id)).emit(event, PAYLOAD);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await waitForQuiet(nodes.map((n) => n.counts));
  const ms = performance.now() - started;

  const row: AdapterRow = {
    audience,
    adapter,
    layout,
    rooms: targets * roomsOf('x').length,
    events: targets * eventsPerRoom,
    nodeA: { ...nodes[0].counts },
    nodeB: { ...nodes[1].counts },
    usefulPerNode: (layout === 'both' ? targets : targets / 2) * eventsPerRoom,
    channels,
    ms: Math.round(ms),
  };
  for (const node of nodes) {
    // Not io.close(): these servers have no HTTP engine attached.
    await Promise.resolve(node.io.of('/').adapter.close()).catch(() => undefined);
    node.cluster.close();
  }
  await base.quit();
  return row;
}

async function settle(clients: Redis[], ms: number): Promise<void> {
  await Promise.all(clients.map((c) => c.ping().catch(() => undefined)));
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Wait until no node's count has moved for 300 ms. */
async function waitForQuiet(counts: NodeCounts[]): Promise<void> {
  let last = '';
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = JSON.stringify(counts);
    if (now === last) return;
    last = now;
  }
}

export async function runAdapters(opts: { redisUrl: string; rooms: number; eventsPerRoom: number }): Promise<AdapterRow[]> {
  const rows: AdapterRow[] = [];
  for (const audience of ['location', 'user'] as const) {
    const targets = audience === 'location' ? opts.rooms / 2 : opts.rooms;
    for (const layout of ['split', 'both'] as const) {
      for (const adapter of ['classic', 'sharded'] as const) rows.push(await runOne(opts.redisUrl, audience, adapter, layout, targets, opts.eventsPerRoom));
    }
  }
  return rows;
}

export function formatAdapters(rows: AdapterRow[]): string {
  const kb = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
  const lines = [
    'adapters (two nodes, node A pushes to every room; what each node receives from Redis)',
    '  audience  adapter  layout  rooms  pushes   node A msgs / bytes        node B msgs / bytes        useful/node  channels  ms',
  ];
  for (const r of rows) {
    lines.push(
      `  ${r.audience.padEnd(9)} ${r.adapter.padEnd(8)} ${r.layout.padEnd(7)} ${String(r.rooms).padStart(5)} ${String(r.events).padStart(7)}   ${String(r.nodeA.messages).padStart(7)} / ${kb(r.nodeA.bytes).padStart(10)}   ${String(r.nodeB.messages).padStart(7)} / ${kb(r.nodeB.bytes).padStart(10)}   ${String(r.usefulPerNode).padStart(10)}  ${String(r.channels).padStart(8)}  ${String(r.ms).padStart(5)}`,
    );
  }
  return lines.join('\n');
}
