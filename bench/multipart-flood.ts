/**
 * An anonymous multipart flood: 30 text fields of 1 MB each, sent to an operation that requires a user
 * (PATCH /api/users/profile/). Prints the status, the time to the answer and how much the service's heap and
 * buffers grew while handling it: a caller the operation refuses must cost no parsing and no memory.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/hyperlocal_bench node --expose-gc --import tsx bench/multipart-flood.ts
 */
import http from 'node:http';
import os from 'node:os';
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../src/platform/config.js';
import { startServer } from '../src/server.js';

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-flood-'));
const config = loadConfig(
  {},
  {
    NODE_ENV: 'test',
    PORT: 0,
    HOST: '127.0.0.1',
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/hyperlocal_bench',
    DATA_DIR: dataDir,
    JWT_SECRET: 'bench',
    LOG_LEVEL: 'silent',
  },
);
const server = await startServer(config, { jobs: false });

const boundary = 'flood';
const value = Buffer.alloc(1024 * 1024 - 200, 'a');
const parts: Buffer[] = [];
for (let i = 0; i < 30; i += 1) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n`), value, Buffer.from('\r\n'));
parts.push(Buffer.from(`--${boundary}--\r\n`));
const body = Buffer.concat(parts);

(globalThis as { gc?: () => void }).gc?.();
const base = process.memoryUsage();
let peak = 0;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  peak = Math.max(peak, m.heapUsed + m.arrayBuffers - base.heapUsed - base.arrayBuffers);
}, 2);
const started = performance.now();
const status = await new Promise<number>((resolve) => {
  const req = http.request(
    `${server.url}/api/users/profile/`,
    { method: 'PATCH', headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': body.length }, agent: false },
    (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    },
  );
  // The service may close the connection before the whole body is sent: that is the point.
  req.on('error', () => undefined);
  req.end(body);
});
const answeredInMs = Math.round(performance.now() - started);
clearInterval(sampler);
console.log(JSON.stringify({ bodyMB: +(body.length / 1048576).toFixed(1), status, answeredInMs, peakHeapPlusBuffersGrowthMB: +(peak / 1048576).toFixed(1) }));
await server.stop();
await fs.rm(dataDir, { recursive: true, force: true });
