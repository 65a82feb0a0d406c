import { sql, type SQL } from 'drizzle-orm';
import { currentDb, type DbOrTx } from '../../platform/db.js';
import type { ChatUser, ConversationView, MessageWithSender } from './messages.serializer.js';

interface ConversationSqlRow extends Record<string, unknown> {
  id: string;
  direct_key: string | null;
  created_at: Date;
  updated_at: Date;
  last_message_at: Date | null;
  last_read_message_id: string | null;
  unread_count: number;
  others: ChatUser[] | null;
  lm_id: string | null;
  lm_content: string | null;
  lm_created_at: Date | null;
  lm_sender: ChatUser | null;
}

/**
 * Conversations as `userId` sees them, one statement for a whole page: the other participants, the last
 * message with its sender, and the caller's unread count (others' messages after its read mark, on the
 * (conversation_id, seq) index) are correlated subqueries and joins of the same query.
 */
const conversationsSql = (userId: string, where: SQL, tail: SQL) => sql`
  SELECT c.id, c.direct_key, c.created_at, c.updated_at, c.last_message_at,
    me.last_read_message_id,
    (SELECT count(*)::int FROM messages um
      WHERE um.conversation_id = c.id AND um.seq > me.last_read_seq AND um.sender_id IS DISTINCT FROM me.user_id) AS unread_count,
    (SELECT json_agg(json_build_object('id', u.id, 'username', u.username, 'display_name', u.display_name, 'profile_picture', u.profile_picture)
            ORDER BY p.joined_at, u.id)
      FROM conversation_participants p JOIN users u ON u.id = p.user_id
      WHERE p.conversation_id = c.id AND p.user_id <> me.user_id) AS others,
    lm.id AS lm_id, lm.text AS lm_content, lm.created_at AS lm_created_at,
    CASE WHEN su.id IS NULL THEN NULL
      ELSE json_build_object('id', su.id, 'username', su.username, 'display_name', su.display_name, 'profile_picture', su.profile_picture) END AS lm_sender
  FROM conversation_participants me
  JOIN conversations c ON c.id = me.conversation_id
  LEFT JOIN messages lm ON lm.id = c.last_message_id
  LEFT JOIN users su ON su.id = lm.sender_id
  WHERE me.user_id = ${userId} AND ${where}
  ${tail}`;

const toView = (r: ConversationSqlRow): ConversationView => ({
  id: r.id,
  isGroup: r.direct_key === null,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  lastMessageAt: r.last_message_at ? new Date(r.last_message_at) : null,
  others: r.others ?? [],
  lastMessage: r.lm_id ? { id: r.lm_id, conversationId: r.id, content: r.lm_content!, createdAt: new Date(r.lm_created_at!), sender: r.lm_sender } : null,
  unreadCount: r.unread_count,
  lastReadMessageId: r.last_read_message_id,
});

/** The caller's conversations, newest activity first (last message, else creation). */
export async function listConversations(userId: string, limit: number, offset: number): Promise<{ count: number; rows: ConversationView[] }> {
  const db = currentDb();
  const counted = await db.execute<{ count: number }>(sql`SELECT count(*)::int AS count FROM conversation_participants WHERE user_id = ${userId}`);
  const page = await db.execute<ConversationSqlRow>(
    conversationsSql(userId, sql`true`, sql`ORDER BY me.activity_at DESC, me.conversation_id DESC LIMIT ${limit} OFFSET ${offset}`),
  );
  return { count: counted.rows[0].count, rows: page.rows.map(toView) };
}

/** One conversation as `userId` sees it; null when it does not exist or `userId` is not a participant. */
export async function findConversationFor(conversationId: string, userId: string, db: DbOrTx = currentDb()): Promise<ConversationView | null> {
  const result = await db.execute<ConversationSqlRow>(conversationsSql(userId, sql`c.id = ${conversationId}`, sql``));
  return result.rows[0] ? toView(result.rows[0]) : null;
}

export async function findDirectConversationId(directKey: string, db: DbOrTx = currentDb()): Promise<string | null> {
  const result = await db.execute<{ id: string }>(sql`SELECT id FROM conversations WHERE direct_key = ${directKey}`);
  return result.rows[0]?.id ?? null;
}

export async function participantIds(conversationId: string, db: DbOrTx = currentDb()): Promise<string[]> {
  const result = await db.execute<{ user_id: string }>(sql`SELECT user_id FROM conversation_participants WHERE conversation_id = ${conversationId} ORDER BY joined_at, user_id`);
  return result.rows.map((r) => r.user_id);
}

export async function isParticipant(conversationId: string, userId: string, db: DbOrTx = currentDb()): Promise<boolean> {
  const result = await db.execute(sql`SELECT 1 FROM conversation_participants WHERE conversation_id = ${conversationId} AND user_id = ${userId}`);
  return result.rows.length > 0;
}

/** A message of this conversation (null if it belongs to another or does not exist). */
export async function findMessageIn(conversationId: string, messageId: string, db: DbOrTx = currentDb()): Promise<{ id: string; seq: number } | null> {
  const result = await db.execute<{ id: string; seq: string | number }>(sql`SELECT id, seq FROM messages WHERE id = ${messageId} AND conversation_id = ${conversationId}`);
  const row = result.rows[0];
  return row ? { id: row.id, seq: Number(row.seq) } : null;
}

interface MessageSqlRow extends Record<string, unknown> {
  id: string;
  conversation_id: string;
  content: string;
  created_at: Date;
  sender: ChatUser | null;
}

const toMessage = (r: MessageSqlRow): MessageWithSender => ({ id: r.id, conversationId: r.conversation_id, content: r.content, createdAt: new Date(r.created_at), sender: r.sender });

const messagesSql = (where: SQL, tail: SQL) => sql`
  SELECT m.id, m.conversation_id, m.text AS content, m.created_at,
    CASE WHEN u.id IS NULL THEN NULL
      ELSE json_build_object('id', u.id, 'username', u.username, 'display_name', u.display_name, 'profile_picture', u.profile_picture) END AS sender
  FROM messages m LEFT JOIN users u ON u.id = m.sender_id
  WHERE ${where} ${tail}`;

/** Newest first; `beforeSeq` keeps only older messages (a cursor that stays put while new messages arrive). */
export async function listMessages(conversationId: string, beforeSeq: number | null, limit: number, offset: number): Promise<{ count: number; rows: MessageWithSender[] }> {
  const db = currentDb();
  const where = beforeSeq === null ? sql`m.conversation_id = ${conversationId}` : sql`m.conversation_id = ${conversationId} AND m.seq < ${beforeSeq}`;
  const counted = await db.execute<{ count: number }>(sql`SELECT count(*)::int AS count FROM messages m WHERE ${where}`);
  const page = await db.execute<MessageSqlRow>(messagesSql(where, sql`ORDER BY m.seq DESC LIMIT ${limit} OFFSET ${offset}`));
  return { count: counted.rows[0].count, rows: page.rows.map(toMessage) };
}

export async function findMessage(id: string, db: DbOrTx = currentDb()): Promise<MessageWithSender | null> {
  const result = await db.execute<MessageSqlRow>(messagesSql(sql`m.id = ${id}`, sql``));
  return result.rows[0] ? toMessage(result.rows[0]) : null;
}

/**
 * Messages of every conversation `userId` takes part in, created after a (created_at, id) position, oldest first
 * (realtime.sync), each with its exact position. Only conversations active since the position are visited (the
 * caller's participant rows carry their conversation's last activity), each on (conversation_id, created_at, id).
 */
export async function messagesCreatedAfter(
  userId: string,
  after: { at: string; id: string },
  limit: number,
): Promise<Array<{ message: MessageWithSender; position: { at: string; id: string } }>> {
  const result = await currentDb().execute<MessageSqlRow & { at: string }>(sql`
    SELECT m.id, m.conversation_id, m.text AS content, m.created_at,
      to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at,
      CASE WHEN u.id IS NULL THEN NULL
        ELSE json_build_object('id', u.id, 'username', u.username, 'display_name', u.display_name, 'profile_picture', u.profile_picture) END AS sender
    FROM conversation_participants me
    JOIN messages m ON m.conversation_id = me.conversation_id
    LEFT JOIN users u ON u.id = m.sender_id
    WHERE me.user_id = ${userId} AND me.activity_at >= ${after.at}::timestamptz
      AND (m.created_at, m.id) > (${after.at}::timestamptz, ${after.id}::uuid)
    ORDER BY m.created_at, m.id
    LIMIT ${limit}`);
  return result.rows.map((r) => ({ message: toMessage(r), position: { at: r.at, id: r.id } }));
}
