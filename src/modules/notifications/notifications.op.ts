import { z } from 'zod';
import { defineOperation, ok } from '../../core/operation.js';

import { zBool, zPage, zPageSize, zUuid } from '../../core/validation.js';
import { listMyNotifications, setNotificationRead } from './notifications.service.js';
import { zNotificationBody } from './notifications.serializer.js';
import { zPaginated } from '../../core/response-schemas.js';

export const listNotificationsOp = defineOperation({
  name: 'notifications.list',
  method: 'GET',
  path: '/api/notifications/',
  auth: 'user',
  summary: "The caller's notifications, newest first",
  tags: ['notifications'],
  input: z.object({ page: zPage(), page_size: zPageSize() }),
  responses: { 200: zPaginated(zNotificationBody) },
  handler: async (input, ctx) => ok(await listMyNotifications(ctx, input)),
});

export const updateNotificationOp = defineOperation({
  name: 'notifications.update',
  method: 'PATCH',
  path: '/api/notifications/{notification_id}/',
  auth: 'user',
  summary: 'Mark a notification read or unread (recipient only)',
  tags: ['notifications'],
  input: z.object({ notification_id: zUuid(), is_read: zBool() }),
  responses: { 200: zNotificationBody },
  handler: async (input, ctx) => ok(await setNotificationRead(ctx, input.notification_id, input.is_read)),
});

export const notificationOperations = [listNotificationsOp, updateNotificationOp];
