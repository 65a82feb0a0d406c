/**
 * The service for `npm run bench -- media`, in a process of its own so that its memory is its own: started as
 * `npm start` starts it (embedded database unless BENCH_DATABASE_URL is set; RATE_LIMITS=off, LOG_LEVEL silent),
 * it sends its URL to the parent over IPC.
 */
import os from 'node:os';
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
const server = await startServer(config, { jobs: false });
process.send!({ url: server.url });
process.on('disconnect', () => {
  void server.stop().finally(() => fs.rm(dataDir, { recursive: true, force: true }).finally(() => process.exit(0)));
});
