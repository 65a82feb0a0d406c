import type { RequestContext } from '../../core/context.js';
import type { NotificationRow } from '../../models/index.js';
import { z } from 'zod';
import { mediaUrl, zUserSummary } from '../users/users.serializer.js';

export interface NotificationActor {
  id: string;
  username: string;
  displayName: string;
  profilePicture: string | null;
}

export type NotificationWithActor = NotificationRow & { actor: NotificationActor | null };

export interface NotificationBody {
  id: string;
  user: string;
  actor: { id: string; username: string; display_name: string; profile_picture: string | null } | null;
  actor_username: string | null;
  notification_type: string;
  target_id: string | null;
  target_type: string | null;
  message: string;
  is_read: boolean;
  created_at: string;
  updated_at: string;
}

export function serializeNotification(n: NotificationWithActor, ctx: Pick<RequestContext, 'baseUrl'>): NotificationBody {
  return {
    id: n.id,
    user: n.userId,
    actor: n.actor
      ? { id: n.actor.id, username: n.actor.username, display_name: n.actor.displayName, profile_picture: mediaUrl(n.actor.profilePicture, ctx.baseUrl) }
      : null,
    actor_username: n.actor?.username ?? null,
    notification_type: n.notificationType,
    target_id: n.targetId,
    target_type: n.targetType,
    message: n.message,
    is_read: n.isRead,
    created_at: n.createdAt.toISOString(),
    updated_at: n.updatedAt.toISOString(),
  };
}

/** The notification object's shape, for the OpenAPI document. */
export const zNotificationBody = z
  .object({
    id: z.string(),
    user: z.string().describe('The recipient id'),
    actor: zUserSummary.nullable(),
    actor_username: z.string().nullable(),
    notification_type: z.string(),
    target_id: z.string().nullable(),
    target_type: z.string().nullable(),
    message: z.string(),
    is_read: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Notification' });
