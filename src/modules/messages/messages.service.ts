import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { AppError, forbidden, notFound } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import { platform } from '../../platform/index.js';
import { currentDb, transaction } from '../../platform/db.js';
import { notifyMany } from '../notifications/notifications.service.js';
import { isBlockedWithAny, unblockedAmong } from '../policy/visibility.js';
import { messageNow } from './message-clock.js';
import { findConversationFor, findDirectConversationId, findMessage, findMessageIn, isParticipant, listConversations, listMessages, participantIds } from './messages.queries.js';
import {
  serializeConversation,
  serializeMessage,
  type ConversationBody,
  type ConversationReadBody,
  type MessageBody,
} from './messages.serializer.js';

declare module '../../core/events.js' {
  interface DomainEventMap {
    /** To every participant's devices, the sender's other devices included. */
    'message.created': { participantIds: string[]; message: MessageBody };
    /** To the other participants: how far `read.user_id` has read. */
    'conversation.read': { recipientIds: string[]; read: ConversationReadBody };
  }
}

/** Contract: later messages notify only when more than 5 minutes passed since the previous message. */
export const NEW_MESSAGE_QUIET_MS = 5 * 60 * 1000;
export const MAX_PARTICIPANTS = 50;

/** Refused when a block, either way, stands between the sender and anyone the message would reach (DESIGN.md section 9). */
const BLOCKED_MESSAGE = 'You cannot message this user.';

const participantsError = (message: string) => new AppError(400, { participant_ids: [message] });

/**
 * `{participant_ids}`: the other users (the caller may be listed too; it is always a participant). One other
 * user gives the 1:1 conversation of the pair, the existing one when there is one (200), else a new one
 * (201); two or more give a new group conversation. Unknown, deactivated or duplicate ids are field errors.
 */
export async function openConversation(ctx: AuthedContext, ids: string[]): Promise<{ created: boolean; conversation: ConversationBody }> {
  if (new Set(ids).size !== ids.length) throw participantsError('Duplicate participant ids are not allowed.');
  const others = ids.filter((id) => id !== ctx.user.id);
  if (!others.length) throw participantsError('You cannot start a conversation with yourself alone.');
  if (others.length + 1 > MAX_PARTICIPANTS) throw participantsError(`A conversation has at most ${MAX_PARTICIPANTS} participants.`);
  const found = await currentDb().execute<{ id: string; is_active: boolean }>(
    sql`SELECT id, is_active FROM users WHERE id = ANY(${sql.param(others)}::uuid[])`,
  );
  const byId = new Map(found.rows.map((r) => [r.id, r.is_active]));
  const unknown = others.filter((id) => !byId.has(id));
  if (unknown.length) throw participantsError(`Invalid pk "${unknown[0]}" - object does not exist.`);
  if (others.some((id) => byId.get(id) === false)) throw participantsError('You cannot start a conversation with a deactivated user.');
  if (await isBlockedWithAny(ctx.user.id, others)) throw forbidden(BLOCKED_MESSAGE);

  const directKey = others.length === 1 ? [ctx.user.id, others[0]].sort().join(':') : null;
  const { id, created } = await transaction(platform.db, async (tx) => {
    // A concurrent opening of the same pair waits on the unique key and then finds the winner's conversation.
    const inserted = await tx.execute<{ id: string }>(sql`
      INSERT INTO conversations (direct_key, created_by) VALUES (${directKey}, ${ctx.user.id})
      ON CONFLICT (direct_key) DO NOTHING RETURNING id`);
    const newId = inserted.rows[0]?.id;
    if (!newId) return { id: (await findDirectConversationId(directKey!, tx))!, created: false };
    await tx.execute(sql`
      INSERT INTO conversation_participants (conversation_id, user_id)
      SELECT ${newId}, u FROM unnest(${sql.param([ctx.user.id, ...others])}::uuid[]) AS u`);
    return { id: newId, created: true };
  });
  const view = await findConversationFor(id, ctx.user.id);
  if (!view) throw notFound();
  return { created, conversation: serializeConversation(view, ctx) };
}

export async function listMyConversations(ctx: AuthedContext, input: { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const { count, rows } = await listConversations(ctx.user.id, params.limit, params.offset);
  return paginated(ctx, '/api/messages/conversations/', params, count, rows.map((c) => serializeConversation(c, ctx)));
}

/** Only participants see a conversation; for anyone else it does not exist (404). */
export async function getConversation(ctx: AuthedContext, id: string): Promise<ConversationBody> {
  const view = await findConversationFor(id, ctx.user.id);
  if (!view) throw notFound();
  return serializeConversation(view, ctx);
}

export async function listConversationMessages(ctx: AuthedContext, id: string, input: { page?: number; page_size?: number; before?: string }) {
  // The access check only: the conversation's full view (participants, unread count) is not needed here.
  if (!(await isParticipant(id, ctx.user.id))) throw notFound();
  let beforeSeq: number | null = null;
  if (input.before) {
    const cursor = await findMessageIn(id, input.before);
    if (!cursor) throw new AppError(400, { before: [`Invalid pk "${input.before}" - object does not exist.`] });
    beforeSeq = cursor.seq;
  }
  const params = pageParams(input, { size: 30, max: 100 });
  const { count, rows } = await listMessages(id, beforeSeq, params.limit, params.offset);
  return paginated(ctx, `/api/messages/conversations/${id}/messages/`, params, count, rows.map((m) => serializeMessage(m, ctx)), { before: input.before });
}

/**
 * Send a message. The conversation row is locked first, so sends to one conversation are serialised and the
 * notification rule reads the true previous message: the other participants get `new_message` for the first
 * message, and later only when more than 5 minutes passed since the previous message. The sender has read
 * its own message. `message:created` reaches every participant's devices after the commit.
 */
export async function sendMessage(ctx: AuthedContext, conversationId: string, content: string): Promise<MessageBody> {
  return transaction(platform.db, async (tx, events) => {
    const locked = await tx.execute<{ last_message_at: Date | null }>(sql`
      SELECT c.last_message_at FROM conversations c
      JOIN conversation_participants me ON me.conversation_id = c.id AND me.user_id = ${ctx.user.id}
      WHERE c.id = ${conversationId}
      FOR UPDATE OF c`);
    if (!locked.rows.length) throw notFound();
    const recipients = (await participantIds(conversationId, tx)).filter((u) => u !== ctx.user.id);
    // Everyone else deleted their account: the conversation stays readable, but nobody is left to write to.
    if (!recipients.length) throw forbidden(BLOCKED_MESSAGE);
    // In a group too: a block stops the pair reaching each other, and a message reaches every participant.
    if (await isBlockedWithAny(ctx.user.id, recipients, tx)) throw forbidden(BLOCKED_MESSAGE);
    const previousAt = locked.rows[0].last_message_at ? new Date(locked.rows[0].last_message_at) : null;
    const now = messageNow();
    const inserted = await tx.execute<{ id: string; seq: string | number }>(sql`
      INSERT INTO messages (conversation_id, sender_id, text, created_at)
      VALUES (${conversationId}, ${ctx.user.id}, ${content}, ${now.toISOString()}) RETURNING id, seq`);
    const { id, seq } = inserted.rows[0];
    await tx.execute(sql`
      UPDATE conversations SET last_message_id = ${id}, last_message_at = ${now.toISOString()}, updated_at = ${now.toISOString()}
      WHERE id = ${conversationId}`);
    // Every participant's list moves this conversation up; the sender has read its own message.
    const touched = await tx.execute<{ user_id: string }>(sql`
      UPDATE conversation_participants SET
        activity_at = ${now.toISOString()},
        last_read_seq = CASE WHEN user_id = ${ctx.user.id} THEN ${seq} ELSE last_read_seq END,
        last_read_message_id = CASE WHEN user_id = ${ctx.user.id} THEN ${id}::uuid ELSE last_read_message_id END,
        last_read_at = CASE WHEN user_id = ${ctx.user.id} THEN ${now.toISOString()}::timestamptz ELSE last_read_at END
      WHERE conversation_id = ${conversationId}
      RETURNING user_id`);
    const everyone = touched.rows.map((r) => r.user_id);
    const others = everyone.filter((u) => u !== ctx.user.id);
    if (previousAt === null || now.getTime() - previousAt.getTime() > NEW_MESSAGE_QUIET_MS) {
      await notifyMany(tx, events, others, {
        actorId: ctx.user.id,
        type: 'new_message',
        targetType: 'conversation',
        targetId: conversationId,
        message: `You have a new message from ${ctx.user.username}`,
      });
    }
    const message = (await findMessage(id, tx))!;
    events.add('message.created', { participantIds: everyone, message: serializeMessage(message, { baseUrl: serverBaseUrl() }) });
    return serializeMessage(message, ctx);
  });
}

/**
 * Mark the conversation read up to `messageId` (default: its latest message). The mark only moves forward;
 * when it moves, the other participants hear `conversation:read`, except those in a block with the caller.
 */
export async function markRead(ctx: AuthedContext, conversationId: string, messageId?: string): Promise<ConversationReadBody> {
  return transaction(platform.db, async (tx, events) => {
    const everyone = await participantIds(conversationId, tx);
    if (!everyone.includes(ctx.user.id)) throw notFound();
    let target: { id: string; seq: number } | null;
    if (messageId) {
      target = await findMessageIn(conversationId, messageId, tx);
      if (!target) throw new AppError(400, { message_id: [`Invalid pk "${messageId}" - object does not exist.`] });
    } else {
      const latest = await tx.execute<{ id: string; seq: string | number }>(sql`SELECT id, seq FROM messages WHERE conversation_id = ${conversationId} ORDER BY seq DESC LIMIT 1`);
      target = latest.rows[0] ? { id: latest.rows[0].id, seq: Number(latest.rows[0].seq) } : null;
    }
    const readAt = messageNow();
    if (target) {
      const moved = await tx.execute(sql`
        UPDATE conversation_participants SET last_read_seq = ${target.seq}, last_read_message_id = ${target.id}, last_read_at = ${readAt.toISOString()}
        WHERE conversation_id = ${conversationId} AND user_id = ${ctx.user.id} AND last_read_seq < ${target.seq}`);
      if ((moved.rowCount ?? 0) > 0) {
        const read = { conversation_id: conversationId, user_id: ctx.user.id, last_read_message_id: target.id, read_at: readAt.toISOString() };
        // Never across a block (DESIGN.md section 9, "Every path"): a conversation from before it stays readable, but
        // the other person no longer learns how far the caller has read.
        events.add('conversation.read', { recipientIds: await unblockedAmong(ctx.user.id, everyone.filter((u) => u !== ctx.user.id), tx), read });
        return read;
      }
    }
    const state = await tx.execute<{ last_read_message_id: string | null; last_read_at: Date | null }>(sql`
      SELECT last_read_message_id, last_read_at FROM conversation_participants WHERE conversation_id = ${conversationId} AND user_id = ${ctx.user.id}`);
    const row = state.rows[0];
    return { conversation_id: conversationId, user_id: ctx.user.id, last_read_message_id: row.last_read_message_id, read_at: row.last_read_at ? new Date(row.last_read_at).toISOString() : null };
  });
}
