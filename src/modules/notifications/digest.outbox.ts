import { defineOutboxHandler } from '../../platform/outbox.js';
import { platform } from '../../platform/index.js';
import { DIGEST_MAIL_KIND, mailDigest, type DigestMailWork } from './digest.js';

declare module '../../platform/outbox.js' {
  interface OutboxPayloads {
    'notifications.digest_mail': DigestMailWork;
  }
}

/**
 * One email digest (digest.ts), claimed and queued by the hourly job in one statement: sent after the commit by any
 * node's outbox worker, retried when the mail server refuses or is away (for about a day), never lost to a process
 * that dies between the claim and the send. A few at a time per node: a mail server is slower than a push service.
 */
export const DIGEST_MAIL_RETRY_DELAYS_MS = [60_000, 300_000, 900_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000] as const;

export const digestMailHandler = defineOutboxHandler({
  kind: DIGEST_MAIL_KIND as 'notifications.digest_mail',
  maxInFlight: 4,
  // Longer than a mail server's slowest answer (nodemailer gives up on a silent socket after 10 minutes).
  leaseMs: 900_000,
  retryDelaysMs: DIGEST_MAIL_RETRY_DELAYS_MS,
  async run(work) {
    await mailDigest(work);
  },
  async onGiveUp(work, _job, error) {
    platform.log.error({ err: error, userId: work.user_id }, 'a notification digest could not be mailed for a day; given up');
  },
});
