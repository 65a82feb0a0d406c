import type { JobDefinition } from '../../jobs/index.js';
import { platform } from '../../platform/index.js';
import { deleteExpiredViewCooldowns } from './views.service.js';

/** Every 10 minutes: drop view-cooldown rows past their 30 minutes (idempotent), logged with its duration. */
export async function runViewCooldownCleanup(): Promise<{ deleted: number; durationMs: number }> {
  const started = performance.now();
  const deleted = await deleteExpiredViewCooldowns();
  const report = { deleted, durationMs: Math.round(performance.now() - started) };
  platform.log.info(report, 'expired view cooldowns deleted');
  return report;
}

export const viewCooldownCleanupJob: JobDefinition = {
  name: 'posts.view_cooldown_cleanup',
  schedule: '*/10 * * * *',
  run: async () => {
    await runViewCooldownCleanup();
  },
};
