import type { JobDefinition } from '../../core/job-definition.js';
import { drainFileDeletions } from './file-deletions.js';

/**
 * Every five minutes: stored files still queued for deletion (their rows are gone) are deleted, those whose deletion
 * after the commit failed or never ran (the process ended first). Idempotent: a deleted file's key is gone.
 */
export const fileDeletionsJob: JobDefinition = {
  name: 'media.file_deletions',
  schedule: '*/5 * * * *',
  run: () => drainFileDeletions(),
};
