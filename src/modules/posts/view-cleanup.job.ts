import type { JobDefinition } from '../../core/job-definition.js';
import { deleteExpiredViewCooldowns } from './views.service.js';

/**
 * Every 10 minutes: drop view-cooldown rows past their 30 minutes. Idempotent (a second run, or two nodes,
 * delete nothing more); the job runner logs its `{deleted}` with the run's duration.
 */
export const viewCooldownCleanupJob: JobDefinition = {
  name: 'posts.view_cooldown_cleanup',
  schedule: '*/10 * * * *',
  run: async () => ({ deleted: await deleteExpiredViewCooldowns() }),
};
