import { z } from 'zod';
import { defineOperation, ok } from '../../core/operation.js';
import { zNotificationBody } from '../notifications/notifications.serializer.js';
import { zMessageBody } from '../messages/messages.serializer.js';
import { zOrderBody } from '../stores/orders.serializer.js';
import { syncFor } from './sync.service.js';

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** An ISO 8601 timestamp (as every pushed payload's created_at/updated_at is written). */
const zSince = () =>
  z.preprocess(
    blankToUndefined,
    z
      .string({ error: 'Enter a valid date/time.' })
      .refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s)), 'Enter a valid date/time.')
      .transform((s) => new Date(s))
      .optional(),
  );

export const zSyncBody = z
  .object({
    notifications: z.array(zNotificationBody).describe("The caller's notifications created or changed, oldest first"),
    messages: z.array(zMessageBody).describe('Messages of the conversations the caller takes part in, oldest first'),
    orders: z.array(zOrderBody).describe('Orders the caller placed or received, created or changed, oldest first'),
    has_more: z.boolean().describe('Some kind had more than 100 items: call again with `cursor`'),
    cursor: z.string().describe('Opaque: where this answer ended for each kind; pass it back to continue'),
  })
  .meta({ id: 'Sync' });

export const syncOp = defineOperation({
  name: 'realtime.sync',
  method: 'GET',
  path: '/api/realtime/sync/',
  auth: 'user',
  summary: 'Catch up after a gap: what changed after `since` (or after `cursor`), oldest first, at most 100 of each kind',
  tags: ['realtime'],
  input: z.object({
    since: zSince(),
    cursor: z.preprocess(blankToUndefined, z.string({ error: 'Invalid cursor.' }).max(2000, 'Invalid cursor.').optional()),
  }),
  responses: { 200: zSyncBody },
  handler: async (input, ctx) => ok(await syncFor(ctx, input)),
});

export const syncOperations = [syncOp];
