import http from 'node:http';
import { io as ioClient, type Socket } from 'socket.io-client';
import { percentile } from './stats.js';

/**
 * Closed-loop load: `concurrency` clients, each sending its next request as soon as the previous one is
 * answered, for `durationMs` after `warmupMs` of untimed traffic. Throughput is answered requests per
 * second of the timed window; latencies are per request. A non-2xx answer is counted as an error.
 */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

export interface LoadOptions {
  concurrency: number;
  durationMs: number;
  warmupMs: number;
}

async function closedLoop(opts: LoadOptions, once: () => Promise<boolean>): Promise<LoadResult> {
  let timing = false;
  let stop = false;
  const samples: number[] = [];
  let errors = 0;
  const client = async () => {
    while (!stop) {
      const start = process.hrtime.bigint();
      const ok = await once().catch(() => false);
      if (!timing) continue;
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (!ok) errors++;
    }
  };
  const clients = Array.from({ length: opts.concurrency }, client);
  await new Promise((r) => setTimeout(r, opts.warmupMs));
  timing = true;
  const started = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, opts.durationMs));
  stop = true;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(clients);
  const sorted = samples.sort((a, b) => a - b);
  return { requests: sorted.length, errors, seconds, rps: sorted.length / seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** GET `url` with keep-alive connections, one per client. */
export async function httpLoad(url: string, headers: Record<string, string>, opts: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const get = () =>
    new Promise<boolean>((resolve, reject) => {
      const req = http.get(url, { agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode! >= 200 && res.statusCode! < 300));
      });
      req.on('error', reject);
    });
  try {
    return await closedLoop(opts, get);
  } finally {
    agent.destroy();
  }
}

/** `event` with ack over `concurrency` connected sockets (websocket transport), one emitter per socket. */
export async function socketLoad(url: string, token: string, event: string, opts: LoadOptions): Promise<LoadResult> {
  const sockets: Socket[] = await Promise.all(
    Array.from(
      { length: opts.concurrency },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const s = ioClient(url, { path: '/socket.io/', transports: ['websocket'], auth: { token }, reconnection: false, forceNew: true });
          s.once('connect', () => resolve(s));
          s.once('connect_error', reject);
        }),
    ),
  );
  let next = 0;
  const emit = async () => {
    const socket = sockets[next++ % sockets.length];
    const ack = (await socket.timeout(10000).emitWithAck(event, {})) as { status: number };
    return ack.status >= 200 && ack.status < 300;
  };
  try {
    return await closedLoop(opts, emit);
  } finally {
    for (const s of sockets) s.close();
  }
}
