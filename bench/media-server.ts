/**
 * The service for `npm run bench -- media`, in a process of its own so that its memory is its own: started as
 * `npm start` starts it (embedded database unless BENCH_DATABASE_URL is set; RATE_LIMITS=off, LOG_LEVEL silent),
 * it sends its URL to the parent over IPC, and answers the message 'full-gcs' with how many full (mark-compact)
 * garbage collections it has run so far, and 'memory' with its process.memoryUsage().
 */
import os from 'node:os';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../src/platform/config.js';
import { startServer } from '../src/server.js';

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-media-'));
const config = loadConfig(
  {},
  {
    PORT: 0,
    HOST: '127.0.0.1',
    ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
    DATA_DIR: dataDir,
    JWT_SECRET: 'bench-media',
    LOG_LEVEL: 'silent',
    RATE_LIMITS: 'off',
  },
);
let fullGcs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if ((entry as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullGcs++;
}).observe({ entryTypes: ['gc'] });
const server = await startServer(config, { jobs: false });
process.send!({ url: server.url });
process.on('message', (m) => {
  // Observer entries arrive after the collection they describe: answered on the next turn, once they are counted.
  if (m === 'full-gcs') setTimeout(() => process.send!({ fullGcs }), 10);
  // What the resident memory holds (media-floods.ts): the JavaScript heap, and the Buffers V8 frees only when it collects.
  if (m === 'memory') process.send!({ memory: process.memoryUsage() });
});
process.on('disconnect', () => {
  void server.stop().finally(() => fs.rm(dataDir, { recursive: true, force: true }).finally(() => process.exit(0)));
});
