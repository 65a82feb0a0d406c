import { loadConfig } from './platform/config.js';
import { startServer } from './server.js';
import { platform } from './platform/index.js';

/** `npm start`: run the service until SIGTERM/SIGINT, then shut down gracefully. */
const started = Date.now();
const config = loadConfig();
const server = await startServer(config);
platform.log.info({ port: server.port, startupMs: Date.now() - started, database: config.DATABASE_URL ? 'server' : 'embedded' }, `listening on http://localhost:${server.port}`);

let shuttingDown = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, async () => {
    if (shuttingDown) return;
    shuttingDown = true;
    platform.log.info({ signal }, 'shutting down');
    try {
      await server.stop();
      process.exit(0);
    } catch (err) {
      platform.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  });
}
