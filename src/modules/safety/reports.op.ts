import { z } from 'zod';
import { created, defineOperation, ok, type RateLimitRule } from '../../core/operation.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { zPaginated } from '../../core/response-schemas.js';
import { REPORT_REASONS, REPORT_TARGET_TYPES } from '../../models/index.js';
import { fileReport, listMyReports } from './reports.service.js';
import { zSafetyReport } from './reports.serializer.js';
import { zBoundedText, zChoiceOf } from './fields.js';

/** Longest `details` a report may carry (the column's bound, migration 0021). */
export const REPORT_DETAILS_MAX = 1000;

const perUser = (points: number, durationSeconds: number): RateLimitRule[] => [{ name: 'user', points, durationSeconds, key: 'user' }];

const create = defineOperation({
  name: 'safety.reports_create',
  method: 'POST',
  path: '/api/safety/reports/',
  auth: 'user',
  summary: 'Report a post, comment, user, message, store, product or community the caller can see (201; the same thing again: 200 with the open report)',
  tags: ['safety'],
  // A person reports now and then; a burst is someone flooding the queue.
  rateLimits: perUser(30, 3600),
  input: z.object({
    target_type: zChoiceOf(REPORT_TARGET_TYPES),
    target_id: zUuid(),
    reason: zChoiceOf(REPORT_REASONS),
    details: zBoundedText(REPORT_DETAILS_MAX),
  }),
  responses: { 200: zSafetyReport, 201: zSafetyReport },
  errors: [403, 404],
  handler: async (input, ctx) => {
    const { created: isNew, report } = await fileReport(ctx, input);
    return isNew ? created(report) : ok(report);
  },
});

const list = defineOperation({
  name: 'safety.reports_list',
  method: 'GET',
  path: '/api/safety/reports/',
  auth: 'user',
  summary: "The caller's own reports, newest first, each with its status",
  tags: ['safety'],
  rateLimits: perUser(600, 60),
  input: z.object({ page: zPage(), page_size: zPageSize() }),
  responses: { 200: zPaginated(zSafetyReport) },
  handler: async (input, ctx) => ok(await listMyReports(ctx, input)),
});

export const reportOperations = [create, list];
