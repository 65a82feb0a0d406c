import { z } from 'zod';
import type { RequestContext } from '../../core/context.js';
import { mediaUrl, zUserSummary } from '../users/users.serializer.js';

/** A user as conversations and messages embed it (stored picture key, not yet a URL). */
export interface ChatUser {
  id: string;
  username: string;
  display_name: string;
  profile_picture: string | null;
}

export interface MessageWithSender {
  id: string;
  conversationId: string;
  content: string;
  createdAt: Date;
  sender: ChatUser | null;
}

export interface ConversationView {
  id: string;
  isGroup: boolean;
  createdAt: Date;
  updatedAt: Date;
  lastMessageAt: Date | null;
  others: ChatUser[];
  lastMessage: MessageWithSender | null;
  unreadCount: number;
  lastReadMessageId: string | null;
}

const chatUser = (u: ChatUser, baseUrl: string) => ({ ...u, profile_picture: mediaUrl(u.profile_picture, baseUrl) });

export const zMessageBody = z
  .object({
    id: z.string(),
    conversation_id: z.string(),
    sender: zUserSummary.nullable().describe('null once the sender account no longer exists'),
    content: z.string().describe('What the sender wrote, as a post\'s or comment\'s content'),
    created_at: z.string(),
  })
  .meta({ id: 'Message' });
export type MessageBody = z.infer<typeof zMessageBody>;

export function serializeMessage(m: MessageWithSender, ctx: Pick<RequestContext, 'baseUrl'>): MessageBody {
  return {
    id: m.id,
    conversation_id: m.conversationId,
    sender: m.sender ? chatUser(m.sender, ctx.baseUrl) : null,
    content: m.content,
    created_at: m.createdAt.toISOString(),
  };
}

export const zConversationBody = z
  .object({
    id: z.string(),
    is_group: z.boolean(),
    participants: z.array(zUserSummary).describe('The other participants (not the caller)'),
    last_message: zMessageBody.nullable(),
    unread_count: z.number().int().describe("Messages of others after the caller's read mark"),
    last_read_message_id: z.string().nullable().describe('How far the caller has read'),
    last_message_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Conversation' });
export type ConversationBody = z.infer<typeof zConversationBody>;

export function serializeConversation(c: ConversationView, ctx: Pick<RequestContext, 'baseUrl'>): ConversationBody {
  return {
    id: c.id,
    is_group: c.isGroup,
    participants: c.others.map((u) => chatUser(u, ctx.baseUrl)),
    last_message: c.lastMessage ? serializeMessage(c.lastMessage, ctx) : null,
    unread_count: c.unreadCount,
    last_read_message_id: c.lastReadMessageId,
    last_message_at: c.lastMessageAt?.toISOString() ?? null,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/** `conversation:read` and the read operation's answer: how far a participant has read. */
export const zConversationRead = z
  .object({ conversation_id: z.string(), user_id: z.string(), last_read_message_id: z.string().nullable(), read_at: z.string().nullable() })
  .meta({ id: 'ConversationRead' });
export type ConversationReadBody = z.infer<typeof zConversationRead>;
