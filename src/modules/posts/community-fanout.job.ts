import type { JobDefinition } from '../../core/job-definition.js';
import { resumeStalledFanouts } from './community-fanout.service.js';

/**
 * Every 10 seconds: community post fan-outs that no batch moved for FANOUT_STALLED_AFTER_SECONDS (a node that
 * crashed or restarted mid-way, a batch that failed) are resumed from their cursor. Under the job lock only one
 * node runs it; each batch's row lock keeps it from writing what a live worker is writing.
 */
export const communityFanoutRecoveryJob: JobDefinition = {
  name: 'posts.community_fanout_recovery',
  schedule: '*/10 * * * * *',
  run: () => resumeStalledFanouts(),
};
