import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../../core/leaving.js';
import { olderThan, positionAt, withPositions } from '../../core/export-paging.js';

/**
 * The messages the caller sent, with their conversation's id. What the others wrote back is theirs, and is not
 * exported: the caller reads it in the conversation itself.
 */
export const messagesExport: ExportSection = {
  name: 'messages',
  item: z.object({ id: z.string(), conversation_id: z.string(), content: z.string(), created_at: z.string() }),
  async load(viewer, page) {
    const { rows } = await platform.db.execute<{ id: string; conversation_id: string; content: string; created_at: Date; at: string; position_id: string }>(sql`
      SELECT id, conversation_id, text AS content, created_at, id AS position_id, ${positionAt(sql`created_at`)} AS at FROM messages
      WHERE sender_id = ${viewer.userId} AND ${olderThan(sql`created_at`, sql`id`, page.before)}
      ORDER BY created_at DESC, id DESC LIMIT ${page.limit}`);
    return withPositions(rows, (r) => ({ id: r.id, conversation_id: r.conversation_id, content: r.content, created_at: new Date(r.created_at).toISOString() }));
  },
};
