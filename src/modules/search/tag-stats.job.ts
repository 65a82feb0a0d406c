import type { JobDefinition } from '../../core/job-definition.js';
import { refreshTagStats } from './tag-stats.js';

/** Every 5 minutes: count again the tags of new posts and the tags counted longest ago (tag-stats.ts). Idempotent. */
export const tagStatsRefreshJob: JobDefinition = {
  name: 'search.tag_stats_refresh',
  schedule: '*/5 * * * *',
  run: refreshTagStats,
};
