import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './platform/config.js';
import { createLogger, defaultLogFormat } from './platform/logger.js';
import { startWatchdog } from './platform/watchdog.js';
import { startEmbeddedDatabase } from './platform/embedded-db.js';
import type { RunningServer } from './server.js';

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

// The embedded database takes seconds to open, in a process of its own: start it before loading the app's
// modules (a second or more through tsx), so that the two overlap. startServer waits for it.
const startLog = createLogger(config.LOG_LEVEL, config.LOG_FORMAT);
const embedded = config.DATABASE_URL ? undefined : startEmbeddedDatabase({ dataDir: path.join(config.dataDir, 'pglite') }, startLog);
embedded?.catch(() => undefined); // reported where startServer awaits it, not as an unhandled rejection
const { startServer } = await import('./server.js');
const { platform } = await import('./platform/index.js');

let server: RunningServer;
try {
  server = await startServer(config, { embedded });
} catch (err) {
  (platform.log ?? startLog).error({ err }, 'failed to start');
  process.exit(1);
}
platform.log.info({ port: server.port, startupMs: Date.now() - started, database: config.DATABASE_URL ? 'server' : 'embedded' }, `listening on http://localhost:${server.port}`);

// From here on, an event loop blocked for WATCHDOG_BLOCKED_MS ends the process (code 70) for the supervisor to restart
// it: such a node answers nothing, SIGTERM included (docs/deployment.md, "Event-loop watchdog"). It keeps watching
// during a shutdown, which a blocked loop would never finish.
const watchdog = startWatchdog({ blockedMs: config.WATCHDOG_BLOCKED_MS, format: config.LOG_FORMAT ?? defaultLogFormat() });
if (watchdog) platform.log.info({ blockedMs: config.WATCHDOG_BLOCKED_MS }, 'event-loop watchdog started');

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
