import { z } from 'zod';
import { defineOperation, ok, type RateLimitRule } from '../../core/operation.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { zPaginated } from '../../core/response-schemas.js';
import { REPORT_ACTIONS } from '../../models/index.js';
import { listModerationLog, listModerationQueue, resolveReport } from './moderation.service.js';
import { zModerationLogEntry, zModerationReport } from './reports.serializer.js';
import { zBoundedText, zChoiceOf } from './fields.js';

/** Longest note a moderator may leave on a resolution. */
export const MODERATION_NOTE_MAX = 1000;

const perUser = (points: number, durationSeconds: number): RateLimitRule[] => [{ name: 'user', points, durationSeconds, key: 'user' }];

const queue = defineOperation({
  name: 'admin.reports_list',
  method: 'GET',
  path: '/api/admin/reports/',
  auth: 'staff',
  summary: 'The moderation queue: one entry per reported thing with its snapshot and distinct reporters; open ones oldest first (default), resolved ones newest first',
  tags: ['moderation'],
  rateLimits: perUser(600, 60),
  input: z.object({ status: zChoiceOf(['open', 'resolved'] as const).optional(), page: zPage(), page_size: zPageSize() }),
  responses: { 200: zPaginated(zModerationReport) },
  handler: async (input, ctx) => ok(await listModerationQueue(ctx, input)),
});

const resolve = defineOperation({
  name: 'admin.reports_resolve',
  method: 'POST',
  path: '/api/admin/reports/{id}/resolve/',
  auth: 'staff',
  summary: "Resolve a report and every report of the same thing: dismiss (restores what auto-hide hid), hide (posts and comments), or suspend the owner (and hide the thing)",
  tags: ['moderation'],
  rateLimits: perUser(300, 60),
  input: z.object({
    id: zUuid(),
    action: zChoiceOf(REPORT_ACTIONS),
    note: zBoundedText(MODERATION_NOTE_MAX),
  }),
  responses: { 200: zModerationReport },
  handler: async (input, ctx) => ok(await resolveReport(ctx, input.id, input)),
});

const log = defineOperation({
  name: 'admin.moderation_log',
  method: 'GET',
  path: '/api/admin/moderation-log/',
  auth: 'staff',
  summary: 'Every moderation action, newest first: who, what, which report and thing, about whom, the note, when',
  tags: ['moderation'],
  rateLimits: perUser(600, 60),
  input: z.object({ page: zPage(), page_size: zPageSize() }),
  responses: { 200: zPaginated(zModerationLogEntry) },
  handler: async (input, ctx) => ok(await listModerationLog(ctx, input)),
});

export const moderationOperations = [queue, resolve, log];
