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
