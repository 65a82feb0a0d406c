import { z } from 'zod';
import { defineOperation, ok } from '../../core/operation.js';
import { zNotificationBody } from '../notifications/notifications.serializer.js';
import { zMessageBody } from '../messages/messages.serializer.js';
import { zOrderBody } from '../stores/orders.serializer.js';
import { zPostBody } from '../posts/posts.serializer.js';
import { isUuid } from '../../core/validation.js';
import { MESSAGES } from '../../core/errors.js';
import { syncFor } from './sync.service.js';
import { DELETION_TYPES } from '../../models/deletions.js';
import { DELETION_RETENTION_DAYS } from '../deletions/retention.js';

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

/** Room ids: a list, a repeated query parameter or one comma-separated value; at most 50. */
const MAX_ROOMS = 50;
const zRoomIds = () =>
  z.preprocess(
    (v) => {
      if (v === undefined || v === null || v === '') return undefined;
      const list = Array.isArray(v) ? v : [v];
      return list.flatMap((item) => (typeof item === 'string' ? item.split(',').map((s) => s.trim()).filter(Boolean) : [item]));
    },
    z
      .array(z.unknown())
      .max(MAX_ROOMS, `Ensure this field has no more than ${MAX_ROOMS} elements.`)
      .refine((ids) => ids.every(isUuid), MESSAGES.invalidUuid)
      .transform((ids) => (ids as string[]).map((id) => id.toLowerCase()))
      .optional(),
  );

export const zSyncDeletion = z
  .object({
    type: z.enum(DELETION_TYPES).describe('What went away'),
    id: z.string().describe('Its id'),
    deleted_at: z.string().describe('When it went away (ISO 8601, UTC)'),
  })
  .meta({ id: 'SyncDeletion' });

export const zSyncBody = z
  .object({
    notifications: z.array(zNotificationBody).describe("The caller's notifications created or changed, oldest first"),
    messages: z.array(zMessageBody).describe('Messages of the conversations the caller takes part in, oldest first'),
    orders: z.array(zOrderBody).describe('Orders the caller placed or received, created or changed, oldest first'),
    posts: z
      .array(zPostBody)
      .describe("Posts of the caller's location and communities and of the rooms watched (socket subscriptions, or `locations`/`communities`), oldest first, as pushed (per-viewer fields as for an anonymous viewer)"),
    deleted: z
      .array(zSyncDeletion)
      .describe(
        'Posts, comments and messages the caller could see (by the rules above: its place, communities, watched rooms and posts, conversations) that went away, oldest first; a deleted post stands for its comments',
      ),
    full_refresh: z
      .boolean()
      .describe(`\`since\` (or the cursor) is older than the ${DELETION_RETENTION_DAYS} days of deletions kept, so \`deleted\` may miss some: drop what is cached and load afresh`),
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
    locations: zRoomIds().describe('Location rooms watched besides the caller\'s own (REST has no subscriptions); each checked as subscribe checks it'),
    communities: zRoomIds().describe('Community rooms watched besides the caller\'s own communities; each checked as subscribe checks it'),
  }),
  responses: { 200: zSyncBody },
  // A channel named in `channels` that does not exist (404) or that the caller may not subscribe to (403).
  errors: [403, 404],
  handler: async (input, ctx) => ok(await syncFor(ctx, input)),
});

export const syncOperations = [syncOp];
