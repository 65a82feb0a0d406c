import { z } from 'zod';
import { defineOperation, ok } from '../../core/operation.js';
import type { RateLimitRule } from '../../core/operation.js';
import { getMyPreferences, updateMyPreferences, zNotificationPreferences, zPreferencesInput } from './preferences.service.js';
import { readAll, unreadCount } from './badges.service.js';

/** Notification preferences and the badge (DESIGN.md section 10; docs/push.md). */
const perUser = (points: number, durationSeconds: number): RateLimitRule[] => [{ name: 'user', points, durationSeconds, key: 'user' }];

export const getPreferencesOp = defineOperation({
  name: 'notifications.preferences',
  method: 'GET',
  path: '/api/notifications/preferences/',
  auth: 'user',
  summary: "The caller's notification preferences: pushed types, email digest, previews, quiet hours",
  tags: ['notifications'],
  input: z.object({}),
  responses: { 200: zNotificationPreferences },
  handler: async (_input, ctx) => ok(await getMyPreferences(ctx)),
});

export const updatePreferencesOp = defineOperation({
  name: 'notifications.update_preferences',
  method: 'PUT',
  path: '/api/notifications/preferences/',
  auth: 'user',
  summary: 'Change the preferences: fields left out stay as they are; `push` changes only the types it names; unknown types or time zones are 400',
  tags: ['notifications'],
  input: zPreferencesInput,
  rateLimits: perUser(120, 3600),
  responses: { 200: zNotificationPreferences },
  handler: async (input, ctx) => ok(await updateMyPreferences(ctx, input)),
});

export const unreadCountOp = defineOperation({
  name: 'notifications.unread_count',
  method: 'GET',
  path: '/api/notifications/unread-count/',
  auth: 'user',
  summary: "The caller's unread notifications (the badge)",
  tags: ['notifications'],
  input: z.object({}),
  responses: { 200: z.object({ count: z.number().int() }).meta({ id: 'UnreadCount' }) },
  handler: async (_input, ctx) => ok(await unreadCount(ctx)),
});

export const readAllOp = defineOperation({
  name: 'notifications.read_all',
  method: 'POST',
  path: '/api/notifications/read-all/',
  auth: 'user',
  summary: "Mark every notification of the caller read; notification:read_all {read_at} goes to all the caller's sockets",
  tags: ['notifications'],
  input: z.object({}),
  responses: { 200: z.object({ updated: z.number().int() }).meta({ id: 'ReadAll' }) },
  handler: async (_input, ctx) => ok(await readAll(ctx)),
});

export const notificationPreferenceOperations = [getPreferencesOp, updatePreferencesOp, unreadCountOp, readAllOp];
