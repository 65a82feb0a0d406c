import cron from 'node-cron';
import { platform } from '../platform/index.js';
import { withJobLock } from './lock.js';
import { boundaryRecalculationJob } from '../modules/locations/boundary.job.js';
import { pollExpiryJob } from '../modules/posts/poll-expiry.job.js';
import { viewCooldownCleanupJob } from '../modules/posts/view-cleanup.job.js';

/**
 * Scheduled jobs. Each runs under a Redis lock when several nodes run, so only one node does the work.
 * Modules add their jobs to `JOBS`.
 */
export interface JobDefinition {
  name: string;
  schedule: string;
  run: () => Promise<void>;
}

export const JOBS: JobDefinition[] = [boundaryRecalculationJob, pollExpiryJob, viewCooldownCleanupJob];

export interface Jobs {
  stop(): void;
}

export function startJobs(definitions: JobDefinition[] = JOBS): Jobs {
  const tasks = definitions.map((job) =>
    cron.schedule(job.schedule, () => {
      withJobLock(job.name, job.run).catch((err) => platform.log.error({ err, job: job.name }, 'job failed'));
    }),
  );
  return { stop: () => tasks.forEach((t) => t.stop()) };
}
