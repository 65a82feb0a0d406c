import { Redis } from 'ioredis';
import { loadConfig } from '../src/platform/config.js';
import { startServer } from '../src/server.js';
import { profileWindow } from './lib/window-profile.mjs';

/**
 * A service node of `npm run bench -- realtime` in a process of its own (as in a deployment), configured by the
 * environment the parent passes; prints its URL once listening, stops on SIGTERM (a `--cpu-prof` profile is
 * written then). Over IPC it answers `memory` (heap + external after a full GC; started with --expose-gc) and
 * `cpu` (CPU time used since the last reset), so the parent can measure the server apart from the clients, and
 * `profile` (a CPU profile of the window between on and off, bench/lib/window-profile.mjs).
 */
/**
 * Redis traffic of this node, counted without MONITOR (bench/realtime-cluster.ts): every PUBLISH/SPUBLISH its
 * clients send (the adapters' broadcasts) and every pub/sub message they receive, with their payload bytes. Counted
 * on ioredis' prototype, before the server creates its clients.
 */
const redisCounts = { published: 0, publishedBytes: 0, received: 0, receivedBytes: 0 };
const proto = Redis.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
for (const command of ['publish', 'spublish']) {
  const send = proto[command]!;
  proto[command] = function (this: unknown, ...args: unknown[]) {
    redisCounts.published++;
    const message = args[1];
    redisCounts.publishedBytes += typeof message === 'string' ? Buffer.byteLength(message) : Buffer.isBuffer(message) ? message.length : 0;
    return send.apply(this, args);
  };
}
const emit = proto.emit!;
proto.emit = function (this: unknown, event: unknown, ...args: unknown[]) {
  // One message raises both `message` and `messageBuffer` (`smessage`...): count the Buffer form once.
  if (event === 'messageBuffer' || event === 'smessageBuffer' || event === 'pmessageBuffer') {
    redisCounts.received++;
    const message = args[args.length - 1];
    if (Buffer.isBuffer(message)) redisCounts.receivedBytes += message.length;
  }
  return emit.call(this, event, ...args);
};

const config = loadConfig();
const server = await startServer(config, { jobs: false, realtime: { adapterKey: process.env.BENCH_ADAPTER_KEY } });
let cpuAtStart = process.cpuUsage();
process.on('message', async (msg: { cmd: string; reset?: boolean; on?: boolean; file?: string }) => {
  if (msg.cmd === 'profile') {
    await profileWindow(msg);
    process.send!({ cmd: 'profiled' });
  } else if (msg.cmd === 'memory') {
    (globalThis as unknown as { gc: () => void }).gc();
    const m = process.memoryUsage();
    process.send!({ cmd: 'memory', bytes: m.heapUsed + m.external, rss: m.rss });
  } else if (msg.cmd === 'counters') {
    // CPU (microseconds) and Redis traffic since the last reset.
    if (msg.reset) (cpuAtStart = process.cpuUsage(), Object.assign(redisCounts, { published: 0, publishedBytes: 0, received: 0, receivedBytes: 0 }));
    const cpu = process.cpuUsage(cpuAtStart);
    process.send!({ cmd: 'counters', cpuUs: cpu.user + cpu.system, ...redisCounts });
  } else if (msg.cmd === 'cpu') {
    if (msg.reset) cpuAtStart = process.cpuUsage();
    const cpu = process.cpuUsage(cpuAtStart);
    process.send!({ cmd: 'cpu', cpuMs: (cpu.user + cpu.system) / 1000 });
  }
});
process.stdout.write(`listening ${server.url}\n`);
process.on('SIGTERM', async () => {
  await server.stop();
  process.exit(0);
});
