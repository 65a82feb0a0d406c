/** `npm run limits:table`: print the table of limits in docs/limits.md from the registry and the configured defaults. */
import { loadConfig } from '../src/platform/config.js';
import { operations } from '../src/registry.js';
import { limitsTable } from '../src/core/limits-table.js';

const config = loadConfig();
console.log(
  limitsTable(
    operations,
    {
      maxConnectionsPerUser: config.SOCKET_MAX_CONNECTIONS_PER_USER,
      maxConnectionsPerIp: config.SOCKET_MAX_CONNECTIONS_PER_IP,
      eventsPerSecond: config.SOCKET_EVENTS_PER_SECOND,
      maxPayloadBytes: config.SOCKET_MAX_PAYLOAD_BYTES,
      maxSubscriptions: config.SOCKET_MAX_SUBSCRIPTIONS,
    },
    { readsPerMinute: config.RATE_LIMIT_DEFAULT_READS_PER_MINUTE, writesPerMinute: config.RATE_LIMIT_DEFAULT_WRITES_PER_MINUTE },
  ),
);
