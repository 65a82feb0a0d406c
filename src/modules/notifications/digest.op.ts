import { z } from 'zod';
import { defineOperation, ok } from '../../core/operation.js';
import { fieldError } from '../../core/errors.js';
import { readUnsubscribeToken, stopDigest } from './digest.js';

/**
 * One-click unsubscribe from the notification digest (RFC 8058; docs/modules/notifications.md, "Email digest"). The
 * digest mail's `List-Unsubscribe` link carries the token in its query; a mail client POSTs to it with the form body
 * `List-Unsubscribe=One-Click`, and no sign-in: the token is the proof. A token not made by this service is 400.
 */
export const digestUnsubscribeOp = defineOperation({
  name: 'notifications.digest_unsubscribe',
  method: 'POST',
  path: '/api/notifications/digest/unsubscribe/',
  auth: 'public',
  summary: "One-click unsubscribe (RFC 8058) from the notification digest: the mail's signed token turns email_digest off",
  tags: ['notifications'],
  input: z.object({
    token: z.string().max(200, 'Ensure this field has no more than 200 characters.'),
    'List-Unsubscribe': z.string().max(50).optional(),
  }),
  rateLimits: [{ name: 'ip', points: 60, durationSeconds: 3600, key: 'ip' }],
  responses: { 200: z.object({ email_digest: z.literal('off') }).meta({ id: 'DigestUnsubscribed' }) },
  handler: async (input) => {
    const userId = readUnsubscribeToken(input.token);
    if (!userId) throw fieldError('token', 'This unsubscribe link is not valid.');
    await stopDigest(userId);
    return ok({ email_digest: 'off' as const });
  },
});

export const digestOperations = [digestUnsubscribeOp];
