import { loadConfig } from '../src/platform/config.js';
import { startServer } from '../src/server.js';

/**
 * A node of `npm run bench -- realtime` with two nodes: the service in a process of its own (as in a
 * deployment), configured by the environment the parent passes; prints its URL once listening, stops on SIGTERM.
 */
const config = loadConfig();
const server = await startServer(config, { jobs: false, realtime: { adapterKey: process.env.BENCH_ADAPTER_KEY } });
process.stdout.write(`listening ${server.url}\n`);
process.on('SIGTERM', async () => {
  await server.stop();
  process.exit(0);
});
