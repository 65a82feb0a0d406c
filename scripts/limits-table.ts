/** `npm run limits:table`: print the table of limits in docs/limits.md from the registry and the configured defaults. */
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/platform/config.js';
import { operations } from '../src/registry.js';
import { limitsTable } from '../src/core/limits-table.js';

/** The table for these settings (the environment's by default); a test compares docs/limits.md with the defaults'. */
export function configuredLimitsTable(config = loadConfig()): string {
  return limitsTable(
    operations,
    {
      maxConnectionsPerUser: config.SOCKET_MAX_CONNECTIONS_PER_USER,
      maxConnectionsPerIp: config.SOCKET_MAX_CONNECTIONS_PER_IP,
      eventsPerSecond: config.SOCKET_EVENTS_PER_SECOND,
      maxPayloadBytes: config.SOCKET_MAX_PAYLOAD_BYTES,
      maxSubscriptions: config.SOCKET_MAX_SUBSCRIPTIONS,
    },
    { readsPerMinute: config.RATE_LIMIT_DEFAULT_READS_PER_MINUTE, writesPerMinute: config.RATE_LIMIT_DEFAULT_WRITES_PER_MINUTE },
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(configuredLimitsTable());
