import cron from 'node-cron';
import { platform } from '../platform/index.js';
import { withJobLock } from './lock.js';
import type { JobDefinition } from '../core/job-definition.js';
import { boundaryRecalculationJob } from '../modules/locations/boundary.job.js';
import { expiredPasswordResetsJob, expiredRevokedRefreshTokensJob, oldAccessChangesJob } from '../modules/accounts/cleanup.job.js';
import { pollExpiryJob } from '../modules/posts/poll-expiry.job.js';
import { viewCooldownCleanupJob } from '../modules/posts/view-cleanup.job.js';
import { popularLocationsRefreshJob } from '../modules/posts/popular-locations.job.js';
import { communityFanoutRecoveryJob } from '../modules/posts/community-fanout.job.js';
import { eventRemindersJob } from '../modules/posts/event-posts.service.js';
import { expiredDeletionsJob } from '../modules/deletions/cleanup.job.js';
import { fileDeletionsJob } from '../modules/media/file-deletions.job.js';
import { webhooksHousekeepingJob } from '../modules/webhooks/webhooks.job.js';
import { outboxGivenUpCleanupJob } from '../platform/outbox-cleanup.job.js';
import { notificationDigestJob } from '../modules/notifications/digest.job.js';
import { tagStatsRefreshJob } from '../modules/search/tag-stats.job.js';

/**
 * Scheduled jobs. Each runs under a Redis lock when several nodes run, so only one node does the work.
 * Modules add their jobs to `JOBS`. A job is idempotent: running it twice, or on a node that lost the race
 * for the lock, does no harm.
 */
export type { JobDefinition };

export const JOBS: JobDefinition[] = [
  boundaryRecalculationJob,
  expiredPasswordResetsJob,
  expiredRevokedRefreshTokensJob,
  oldAccessChangesJob,
  pollExpiryJob,
  viewCooldownCleanupJob,
  popularLocationsRefreshJob,
  communityFanoutRecoveryJob,
  eventRemindersJob,
  expiredDeletionsJob,
  fileDeletionsJob,
  webhooksHousekeepingJob,
  outboxGivenUpCleanupJob,
  notificationDigestJob,
  tagStatsRefreshJob,
];

export interface Jobs {
  stop(): void;
}

/** One run of a job under its lock, logged with its duration and result; false when another node holds the lock. */
export async function runJob(job: JobDefinition): Promise<boolean> {
  const startedAt = performance.now();
  let result: unknown;
  const ran = await withJobLock(job.name, async () => {
    result = await job.run();
  });
  if (ran) platform.log.info({ job: job.name, durationMs: Math.round(performance.now() - startedAt), result }, 'job finished');
  else platform.log.debug({ job: job.name }, 'job skipped: another node holds its lock');
  return ran;
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
    const ran = await runJob(job);
    platform.metrics.countJobRun(job.name, ran ? 'ok' : 'skipped', ran ? (performance.now() - startedAt) / 1000 : undefined);
  } catch (err) {
    platform.metrics.countJobRun(job.name, 'failed', (performance.now() - startedAt) / 1000);
    platform.log.error({ err, job: job.name }, 'job failed');
  }
}
