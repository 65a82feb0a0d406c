import { z } from 'zod';
import { zPollData, zPostBody } from '../modules/posts/posts.serializer.js';
import { zCommentBody } from '../modules/comments/comments.serializer.js';
import { zNotificationBody } from '../modules/notifications/notifications.serializer.js';
import { zConversationRead, zMessageBody } from '../modules/messages/messages.serializer.js';
import { zLocationBody } from '../modules/locations/locations.serializer.js';
import { zOrderBody } from '../modules/stores/orders.serializer.js';

/**
 * Every event the server pushes to sockets (DESIGN.md section 5), with its payload's schema: the same serializer
 * schemas as the OpenAPI document's, so the client's generated types (scripts/client-types.ts) name the same
 * shapes for a pushed post as for a read one. tests/unit/server-events.test.ts fails when src/realtime emits an
 * event that is not listed here.
 */
const zPostRef = z.object({ id: z.string() });
const zPollChange = z.object({ post_id: z.string(), poll_data: zPollData });

export const serverEvents = {
  'post:created': { payload: zPostBody, about: 'A post in a location or community room the socket hears' },
  'post:updated': { payload: zPostBody, about: 'Its author edited a post the socket hears (the whole post; edited_at set)' },
  'post:deleted': { payload: zPostRef, about: 'A post went away (deleted, hidden, its community deleted)' },
  'post:stats': {
    payload: z.object({
      post_id: z.string(),
      likes_count: z.number().int(),
      comments_count: z.number().int(),
      views_count: z.number().int(),
      going_count: z.number().int().optional(),
      interested_count: z.number().int().optional(),
    }),
    about: "A post's counters, at most once a second per post (an event's also carry its going and interested counts)",
  },
  'comment:created': { payload: zCommentBody, about: 'A comment on a post whose room the socket subscribed to' },
  'comment:updated': { payload: zCommentBody, about: 'Its author edited a comment on a post whose room the socket subscribed to' },
  'poll:updated': { payload: zPollChange, about: "A vote moved a poll's results" },
  'poll:expired': { payload: zPollChange, about: 'A poll closed' },
  'notification:created': { payload: zNotificationBody, about: "A notification of the socket's user" },
  'notification:updated': { payload: zNotificationBody, about: 'A notification changed (read on another device)' },
  'notification:read_all': { payload: z.object({ read_at: z.string() }), about: 'Every notification of the user was marked read (on another device): clear the badge' },
  'message:created': { payload: zMessageBody, about: "A message in one of the user's conversations" },
  'conversation:read': { payload: zConversationRead, about: 'Another participant read a conversation' },
  typing: { payload: z.object({ conversation_id: z.string(), user_id: z.string() }), about: 'Another participant is typing (never stored)' },
  'location:updated': { payload: zLocationBody, about: "A location's name, boundary or confidence changed" },
  'order:created': { payload: zOrderBody, about: "An order for one of the user's stores" },
  'order:updated': { payload: zOrderBody, about: "An order the user placed or received changed" },
  'community:deleted': { payload: zPostRef, about: 'A community the socket subscribed to was deleted; its room is emptied' },
  'auth:expired': { payload: z.object({}), about: 'The access token ran out without auth:renew; the server disconnects' },
} as const satisfies Record<string, { payload: z.ZodType; about: string }>;

export type ServerEventName = keyof typeof serverEvents;
