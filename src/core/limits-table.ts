import type { Operation, RateLimitRule } from './operation.js';
import { DEFAULT_RATE_LIMITS, effectiveRateLimits, isDefaultLimit, type DefaultRateLimits } from './operation-limits.js';

/**
 * The table of limits in docs/limits.md, generated from the operations themselves (`npm run limits:table`), so the
 * documented numbers are the enforced ones.
 */
export interface SocketLimits {
  maxConnectionsPerUser: number;
  maxConnectionsPerIp: number;
  eventsPerSecond: number;
  maxPayloadBytes: number;
  maxSubscriptions: number;
}

export function limitsTable(operations: readonly Operation[], socket: SocketLimits, defaults: DefaultRateLimits = DEFAULT_RATE_LIMITS): string {
  const lines = ['| Operation | REST | Limit | Counted per | |', '|---|---|---|---|---|'];
  for (const op of [...operations].sort((a, b) => a.name.localeCompare(b.name))) {
    for (const rule of effectiveRateLimits(op, defaults)) {
      lines.push(`| \`${op.name}\` | \`${op.method} ${op.path}\` | ${rule.points} per ${duration(rule.durationSeconds)} | ${countedPer(rule)} | ${isDefaultLimit(rule) ? 'default' : 'declared'} |`);
    }
  }
  lines.push('', '| Socket limit | Default | Variable | Answer |', '|---|---|---|---|');
  lines.push(`| connections per user | ${socket.maxConnectionsPerUser} | \`SOCKET_MAX_CONNECTIONS_PER_USER\` | \`connect_error\` "Too many connections for this user (at most ${socket.maxConnectionsPerUser})." |`);
  lines.push(`| connections per IP | ${socket.maxConnectionsPerIp} | \`SOCKET_MAX_CONNECTIONS_PER_IP\` | \`connect_error\` "Too many connections from this address (at most ${socket.maxConnectionsPerIp})." |`);
  lines.push(`| events per second per socket | ${socket.eventsPerSecond} | \`SOCKET_EVENTS_PER_SECOND\` (lifted by \`RATE_LIMITS=off\`) | ack \`{status: 429, body: {detail: 'Request was throttled. Expected available in 1 second.'}}\`; the event is not run |`);
  lines.push(`| subscriptions per socket | ${socket.maxSubscriptions} | \`SOCKET_MAX_SUBSCRIPTIONS\` | ack \`{status: 429, body: {detail: 'Too many subscriptions on this connection (at most ${socket.maxSubscriptions}): unsubscribe from one first.'}}\`; a room already held takes no second slot |`);
  lines.push(`| message size | ${socket.maxPayloadBytes} bytes | \`SOCKET_MAX_PAYLOAD_BYTES\` | Socket.IO's \`maxHttpBufferSize\`: the connection is closed (reason \`transport close\`) |`);
  return lines.join('\n');
}

function countedPer(rule: RateLimitRule): string {
  if (rule.key === 'ip') return 'IP';
  if (rule.key === 'user') return 'user (IP when anonymous)';
  return rule.name;
}

function duration(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
  return `${seconds} s`;
}
