import type { JobDefinition } from '../../core/job-definition.js';
import { sendDueDigests } from './digest.js';

/** Hourly, on one node (its lock): claims each digest that is due and queues its mail as outbox work (digest.ts). */
export const notificationDigestJob: JobDefinition = {
  name: 'notifications.digest',
  schedule: '41 * * * *',
  run: () => sendDueDigests(),
};
