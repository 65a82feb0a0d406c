import crypto from 'node:crypto';
import { io as ioClient, type Socket } from 'socket.io-client';
import type { Server, Socket as ServerSocket } from 'socket.io';
import { broadcastWriteCounts } from '../../src/realtime/direct-broadcast.js';
import { startCluster, type TestCluster, CLUSTER_START_TIMEOUT_MS } from '../helpers/cluster.js';
import { describeWithRedis, eventually, startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Broadcasts written straight to a socket's connection (src/realtime/direct-broadcast.ts) keep Socket.IO's
 * guarantees: every socket gets every frame, in the order the server handed them to Socket.IO, whether the
 * frame took the direct write or the library's path (polling, an upgrade, a write in flight), and whichever
 * node the broadcast came from. The order tests hold with or without the direct write; the counts show which
 * path was taken.
 */
const METRICS_TOKEN = 'metrics-token-for-the-direct-broadcast-tests-0123';

/** Server-side socket of a connected client. */
const serverSocket = (io: Server, client: Socket): ServerSocket => {
  const s = io.of('/').sockets.get(client.id!);
  if (!s) throw new Error('the client has no socket on this node');
  return s;
};

/** The node's broadcast writes as its /metrics reports them (works for a node in another module registry). */
async function scrapedWrites(app: TestApp): Promise<{ direct: number; library: number }> {
  const res = await app.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
  expect(res.status).toBe(200);
  const count = (path: string) => Number(new RegExp(`^hyperlocal_realtime_broadcast_writes_total\\{path="${path}"\\} (\\d+)`, 'm').exec(res.text)?.[1] ?? NaN);
  return { direct: count('direct'), library: count('library') };
}

/** Every `test:seq` number the socket receives, in arrival order. */
function collect(client: Socket): number[] {
  const got: number[] = [];
  client.on('test:seq', (n: number) => got.push(n));
  return got;
}

/** A round trip through the server: everything sent to the socket before it has arrived when it resolves. */
const roundTrip = (client: Socket) => client.timeout(5000).emitWithAck('test:unknown-event', {});

describe('direct broadcast writes on one node', () => {
  let app: TestApp;
  let io: Server;
  /** Server handler for `test:mix`: in one synchronous block, acks, direct emits and broadcasts in a set order. */
  let onMix: (socket: ServerSocket, plan: string, ack: (n: number) => void) => void = () => undefined;
  /** A room every new socket joins as it connects. */
  let joinOnConnect: string | null = null;

  beforeAll(async () => {
    app = await startTestApp({ METRICS_TOKEN, RATE_LIMITS: 'off' });
    io = app.server.io;
    // Ahead of the service's dispatcher (which answers every event itself): `test:mix` is this file's own.
    io.of('/').prependListener('connection', (socket: ServerSocket) => {
      if (joinOnConnect) void socket.join(joinOnConnect);
      socket.use(([name, plan, ack], next) => {
        if (name === 'test:mix' && typeof ack === 'function') onMix(socket, String(plan), ack as (n: number) => void);
        else next();
      });
    });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const connect = async (transports: ('polling' | 'websocket')[] = ['websocket']): Promise<Socket> => {
    const s = ioClient(app.url, { path: '/socket.io/', transports, reconnection: false, forceNew: true });
    await new Promise<void>((resolve, reject) => {
      s.once('connect', () => resolve());
      s.once('connect_error', reject);
    });
    return s;
  };

  test('when a room of idle websocket sockets gets a broadcast, then each socket is written to directly, once, and receives it', async () => {
    const room = `test:${crypto.randomUUID()}`;
    const clients = await Promise.all([connect(), connect(), connect()]);
    for (const c of clients) await serverSocket(io, c).join(room);
    for (const c of clients) await roundTrip(c); // every earlier write of the library has completed
    const got = clients.map(collect);
    const before = { ...broadcastWriteCounts(io)! };

    io.to(room).emit('test:seq', 1);
    io.to(room).emit('test:seq', 2);

    const counts = { ...broadcastWriteCounts(io)! };
    for (const c of clients) await roundTrip(c);
    expect(got).toEqual([[1, 2], [1, 2], [1, 2]]);
    expect(counts).toEqual({ direct: before.direct + 6, library: before.library });
    expect(await scrapedWrites(app)).toEqual(broadcastWriteCounts(io));
    for (const c of clients) c.close();
  });

  test("when a connection has a 'packetCreate' listener, then its broadcasts take the library's path, which emits it", async () => {
    const room = `test:${crypto.randomUUID()}`;
    const [observed, plain] = await Promise.all([connect(), connect()]);
    for (const c of [observed, plain]) await serverSocket(io, c).join(room);
    for (const c of [observed, plain]) await roundTrip(c);
    const created: unknown[] = [];
    serverSocket(io, observed).conn.on('packetCreate', (packet: unknown) => created.push(packet));
    const got = [observed, plain].map(collect);
    const before = { ...broadcastWriteCounts(io)! };

    io.to(room).emit('test:seq', 1);

    const counts = { ...broadcastWriteCounts(io)! };
    const createdByBroadcast = [...created];
    for (const c of [observed, plain]) await roundTrip(c);
    expect(got).toEqual([[1], [1]]);
    expect(createdByBroadcast).toEqual([expect.objectContaining({ type: 'message' })]);
    expect(counts).toEqual({ direct: before.direct + 1, library: before.library + 1 });
    for (const c of [observed, plain]) c.close();
  });

  test('when acks, direct emits and broadcasts to a socket are interleaved rapidly, then it receives them in exactly the order they were sent', async () => {
    const room = `test:${crypto.randomUUID()}`;
    const clients = await Promise.all([connect(), connect()]);
    for (const c of clients) await serverSocket(io, c).join(room);
    const got = clients.map(collect);
    // What each socket must receive, in order: the numbers the server handed to Socket.IO for it.
    const sent = new Map<string, number[]>(clients.map((c) => [c.id!, []]));
    let seq = 0;
    const toRoom = () => {
      const n = seq++;
      for (const list of sent.values()) list.push(n);
      io.to(room).emit('test:seq', n);
    };
    const toSocket = (socket: ServerSocket) => {
      const n = seq++;
      sent.get(socket.id)!.push(n);
      socket.emit('test:seq', n);
    };
    const acked = new Map<string, number[]>(clients.map((c) => [c.id!, []]));
    onMix = (socket, plan, ack) => {
      for (const step of plan) {
        if (step === 'b') toRoom();
        else if (step === 'e') toSocket(socket);
        else {
          const n = seq++;
          sent.get(socket.id)!.push(n);
          acked.get(socket.id)!.push(n);
          ack(n);
        }
      }
    };
    // Acks arrive through the ack callback, called as the ack packet is decoded: recorded in the same arrival
    // list as the events (a promise's `then` would record it a microtask late, after later packets).
    const mixes: Promise<void>[] = [];
    const plans = ['ab', 'ba', 'eb', 'be', 'bbe', 'aeb', 'bea', 'bbbb', 'ebeb', 'beeb', 'a', 'b'];
    // Broadcasts also come between the socket's own requests, from timers of their own.
    let ticking = true;
    const ticker = (async () => {
      while (ticking) {
        toRoom();
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let round = 0; round < 40; round++) {
      for (const [i, c] of clients.entries()) {
        const plan = plans[(round + i) % plans.length]!;
        mixes.push(
          new Promise<void>((resolve, reject) =>
            c.timeout(10000).emit('test:mix', plan.includes('a') ? plan : `${plan}a`, (err: Error | null, n: number) => {
              if (err) return reject(err);
              got[i]!.push(n);
              resolve();
            }),
          ),
        );
      }
      if (round % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(mixes);
    ticking = false;
    await ticker;
    for (const c of clients) await roundTrip(c);

    for (const [i, c] of clients.entries()) {
      expect(got[i]!.length).toBeGreaterThan(150);
      expect(got[i]).toEqual(sent.get(c.id!));
    }
    for (const c of clients) c.close();
  });

  test('when a socket is on the polling transport, then it still receives every broadcast, in order, through the library', async () => {
    const room = `test:${crypto.randomUUID()}`;
    const polling = await connect(['polling']);
    const ws = await connect();
    for (const c of [polling, ws]) await serverSocket(io, c).join(room);
    const got = [polling, ws].map(collect);
    await roundTrip(ws);
    const before = { ...broadcastWriteCounts(io)! };

    for (let n = 0; n < 20; n++) io.to(room).emit('test:seq', n);

    const counts = { ...broadcastWriteCounts(io)! };
    await roundTrip(polling);
    await roundTrip(ws);
    const all = Array.from({ length: 20 }, (_, n) => n);
    expect(got).toEqual([all, all]);
    expect(counts.library - before.library).toBe(20); // the polling socket's
    expect(counts.direct - before.direct).toBe(20); // the idle websocket one's
    polling.close();
    ws.close();
  });

  test('when a socket upgrades from polling to websocket while broadcasts keep coming, then it receives every one, in order', async () => {
    const room = `test:${crypto.randomUUID()}`;
    // The socket joins as it connects; broadcasts run from before the handshake until well after the upgrade.
    joinOnConnect = room;
    const sent: number[] = [];
    let n = 0;
    let upgradedFor = -1;
    const before = { ...broadcastWriteCounts(io)! };
    let ticking = true;
    const ticker = (async () => {
      while (ticking) {
        const members = io.of('/').adapter.rooms.get(room);
        if (members?.size) sent.push(n);
        io.to(room).emit('test:seq', n++);
        const conn = members?.size ? io.of('/').sockets.get([...members][0]!)?.conn : undefined;
        if (conn?.transport.name === 'websocket' && upgradedFor < 0) upgradedFor = n;
        if (upgradedFor >= 0 && n - upgradedFor > 50) return;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const client = ioClient(app.url, { path: '/socket.io/', transports: ['polling', 'websocket'], reconnection: false, forceNew: true });
    const got = collect(client);
    await ticker;
    ticking = false;
    joinOnConnect = null;
    await roundTrip(client);

    expect(upgradedFor).toBeGreaterThan(0);
    expect(serverSocket(io, client).conn.transport.name).toBe('websocket');
    expect(sent.length).toBeGreaterThan(50);
    expect(got).toEqual(sent);
    const counts = { ...broadcastWriteCounts(io)! };
    expect(counts.library - before.library).toBeGreaterThan(0); // on polling and during the upgrade
    expect(counts.direct - before.direct).toBeGreaterThan(0); // once on websocket
    client.close();
  });
});

describeWithRedis.each(['classic', 'sharded'])('direct broadcast writes across two nodes (REDIS_ADAPTER=%s)', (adapter) => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startCluster({ REDIS_ADAPTER: adapter, METRICS_TOKEN });
  }, CLUSTER_START_TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.stop();
  });

  test('when node A broadcasts to a room with sockets on node B, then B writes the frames directly and its sockets receive them in order', async () => {
    const { a, b } = cluster;
    const room = `test:${crypto.randomUUID()}`;
    const onB = await Promise.all([b.socket(), b.socket()]);
    const onA = await a.socket();
    for (const c of onB) await serverSocket(b.server.io, c).join(room);
    await serverSocket(a.server.io, onA).join(room);
    const got = [...onB, onA].map(collect);
    for (const c of [...onB, onA]) await roundTrip(c);
    // Sharded dynamic mode subscribes B to the room's channel asynchronously: probe until B's sockets hear A.
    const heard = onB.map(() => false);
    onB.forEach((c, i) => c.on('test:probe', () => (heard[i] = true)));
    expect(
      await eventually(async () => {
        a.server.io.to(room).emit('test:probe', 1);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return heard.every(Boolean);
      }, 5000),
    ).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the last probes have landed

    const start = await scrapedWrites(b);
    for (let n = 0; n < 30; n++) a.server.io.to(room).emit('test:seq', n);
    const all = Array.from({ length: 30 }, (_, n) => n);
    expect(await eventually(async () => got.every((g) => g.length === 30), 5000)).toBe(true);

    expect(got).toEqual([all, all, all]);
    const after = await scrapedWrites(b);
    expect(after.direct + after.library - start.direct - start.library).toBe(60);
    expect(after.direct - start.direct).toBeGreaterThan(0);
  });
});
