import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';

/**
 * Devices that took a push, written to `last_success_at` together once a second (a flood of 10,000 pushes is then a
 * few statements, not 10,000). What is waiting when the process dies is lost: the next success writes it again.
 */
const successes = new Map<string, Date>();
let successTimer: NodeJS.Timeout | null = null;
export function noteSuccess(deviceId: string, at: Date): void {
  successes.set(deviceId, at);
  if (!successTimer) {
    successTimer = setTimeout(() => void flushSuccesses(), 1000);
    successTimer.unref();
  }
}
export async function flushSuccesses(): Promise<void> {
  if (successTimer) clearTimeout(successTimer);
  successTimer = null;
  if (!successes.size) return;
  const ids = [...successes.keys()];
  const at = [...successes.values()].map((d) => d.toISOString());
  successes.clear();
  await platform.db
    .execute(sql`UPDATE push_devices d SET last_success_at = s.at FROM unnest(${sql.param(ids)}::uuid[], ${sql.param(at)}::timestamptz[]) AS s(id, at) WHERE d.id = s.id`)
    .catch((err) => platform.log.warn({ err }, 'could not record push successes'));
}
