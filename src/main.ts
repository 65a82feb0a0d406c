import { ConfigError, loadConfig, type Config } from './platform/config.js';
import { startServer, type RunningServer } from './server.js';
import { platform } from './platform/index.js';

/** `npm start`: run the service until SIGTERM/SIGINT, then shut down gracefully. */
const started = Date.now();

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  // A configuration mistake is the operator's to fix: say which variable, without a stack trace.
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}

let server: RunningServer;
try {
  server = await startServer(config);
} catch (err) {
  (platform.log ?? console).error({ err }, 'failed to start');
  process.exit(1);
}
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
