import cron from 'node-cron';
import { platform } from '../platform/index.js';
import { withJobLock } from './lock.js';
import { boundaryRecalculationJob } from '../modules/locations/boundary.job.js';

/**
 * Scheduled jobs. Each runs under a Redis lock when several nodes run, so only one node does the work.
 * Modules add their jobs to `JOBS`.
 */
export interface JobDefinition {
  name: string;
  schedule: string;
  run: () => Promise<void>;
}

export const JOBS: JobDefinition[] = [boundaryRecalculationJob];

export interface Jobs {
  stop(): void;
}

export function startJobs(definitions: JobDefinition[] = JOBS): Jobs {
  const tasks = definitions.map((job) =>
    cron.schedule(job.schedule, () => {
      void runScheduledJob(job);
    }),
  );
  return { stop: () => tasks.forEach((t) => t.stop()) };
}

/** One scheduled run: under the lock, counted in the metrics (ok, failed, or skipped when another node runs it). */
export async function runScheduledJob(job: JobDefinition): Promise<void> {
  const startedAt = performance.now();
  try {
    const ran = await withJobLock(job.name, job.run);
    platform.metrics.countJobRun(job.name, ran ? 'ok' : 'skipped', ran ? (performance.now() - startedAt) / 1000 : undefined);
  } catch (err) {
    platform.metrics.countJobRun(job.name, 'failed', (performance.now() - startedAt) / 1000);
    platform.log.error({ err, job: job.name }, 'job failed');
  }
}
