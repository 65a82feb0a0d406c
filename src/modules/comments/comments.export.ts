import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../../core/leaving.js';
import { olderThan, positionAt, withPositions } from '../../core/export-paging.js';
import { reactionsExport } from '../posts/reactions.export.js';

/**
 * The comments module's part of an account's export: what the caller wrote, with the ids of the post and the
 * comment it answered (their content is their authors'), and the caller's likes and bookmarks of comments.
 */
export const commentsExport: ExportSection = {
  name: 'comments',
  item: z.object({ id: z.string(), post: z.string(), parent: z.string().nullable(), content: z.string(), created_at: z.string(), updated_at: z.string(), edited_at: z.string().nullable() }),
  async load(viewer, page) {
    const { rows } = await platform.db.execute<{ id: string; post_id: string; parent_id: string | null; content: string; created_at: Date; updated_at: Date; edited_at: Date | null; at: string; position_id: string }>(sql`
      SELECT id, post_id, parent_id, content, created_at, updated_at, edited_at, id AS position_id, ${positionAt(sql`created_at`)} AS at FROM comments
      WHERE user_id = ${viewer.userId} AND ${olderThan(sql`created_at`, sql`id`, page.before)}
      ORDER BY created_at DESC, id DESC LIMIT ${page.limit}`);
    return withPositions(rows, (r) => ({
      id: r.id,
      post: r.post_id,
      parent: r.parent_id,
      content: r.content,
      created_at: new Date(r.created_at).toISOString(),
      updated_at: new Date(r.updated_at).toISOString(),
      edited_at: r.edited_at ? new Date(r.edited_at).toISOString() : null,
    }));
  },
};

/** Earlier versions of the caller's comments (their edits' history): the author's own words. */
export const commentVersionsExport: ExportSection = {
  name: 'comment_versions',
  item: z.object({ comment: z.string(), content: z.string(), edited_at: z.string().nullable(), replaced_at: z.string() }),
  async load(viewer, page) {
    const { rows } = await platform.db.execute<{ comment_id: string; content: string; edited_at: Date | null; replaced_at: Date; at: string; position_id: string }>(sql`
      SELECT comment_id, content, edited_at, replaced_at, id AS position_id, ${positionAt(sql`replaced_at`)} AS at FROM comment_versions
      WHERE user_id = ${viewer.userId} AND ${olderThan(sql`replaced_at`, sql`id`, page.before)}
      ORDER BY replaced_at DESC, id DESC LIMIT ${page.limit}`);
    return withPositions(rows, (r) => ({
      comment: r.comment_id,
      content: r.content,
      edited_at: r.edited_at ? new Date(r.edited_at).toISOString() : null,
      replaced_at: new Date(r.replaced_at).toISOString(),
    }));
  },
};

export const commentLikesExport = reactionsExport('comment_likes', { table: 'comment_likes', targetColumn: 'comment_id' }, 'comment');
export const commentBookmarksExport = reactionsExport('comment_bookmarks', { table: 'comment_bookmarks', targetColumn: 'comment_id' }, 'comment');
