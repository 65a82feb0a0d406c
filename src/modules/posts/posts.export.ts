import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../../core/leaving.js';
import { olderThan, ownedRowsPage, positionAt, withPositions } from '../../core/export-paging.js';
import { loadPosts } from './posts.queries.js';
import { serializePost, zPostBody } from './posts.serializer.js';
import { reactionsExport } from './reactions.export.js';

/**
 * The posts module's part of an account's export (docs/modules/leaving.md): the caller's posts as the caller sees them,
 * and what the caller gave others' posts (likes, bookmarks, poll votes), by id only: whose post it was and what it
 * said is the other person's.
 */
export const postsExport: ExportSection = {
  name: 'posts',
  item: zPostBody,
  load: (viewer, page) =>
    ownedRowsPage(
      { from: sql`posts t`, owned: sql`t.user_id = ${viewer.userId}`, ...page },
      (ids) => loadPosts(ids, viewer.userId, platform.db, viewer.baseUrl),
      (post) => serializePost(post, viewer),
    ),
};

/** Earlier versions of the caller's posts (their edits' history): the author's own words. */
export const postVersionsExport: ExportSection = {
  name: 'post_versions',
  item: z.object({ post: z.string(), content: z.string(), title: z.string().nullable(), content_warning: z.string().nullable(), edited_at: z.string().nullable(), replaced_at: z.string() }),
  async load(viewer, page) {
    const { rows } = await platform.db.execute<{ post_id: string; content: string; title: string | null; content_warning: string | null; edited_at: Date | null; replaced_at: Date; at: string; position_id: string }>(sql`
      SELECT post_id, content, title, content_warning, edited_at, replaced_at, id AS position_id, ${positionAt(sql`replaced_at`)} AS at FROM post_versions
      WHERE user_id = ${viewer.userId} AND ${olderThan(sql`replaced_at`, sql`id`, page.before)}
      ORDER BY replaced_at DESC, id DESC LIMIT ${page.limit}`);
    return withPositions(rows, (r) => ({
      post: r.post_id,
      content: r.content,
      title: r.title,
      content_warning: r.content_warning,
      edited_at: r.edited_at ? new Date(r.edited_at).toISOString() : null,
      replaced_at: new Date(r.replaced_at).toISOString(),
    }));
  },
};

export const postLikesExport = reactionsExport('post_likes', { table: 'post_likes', targetColumn: 'post_id' }, 'post');
export const postBookmarksExport = reactionsExport('post_bookmarks', { table: 'post_bookmarks', targetColumn: 'post_id' }, 'post');

export const pollVotesExport: ExportSection = {
  name: 'poll_votes',
  item: z.object({ post: z.string(), option: z.string(), option_text: z.string(), created_at: z.string() }),
  async load(viewer, page) {
    const { rows } = await platform.db.execute<{ post_id: string; option_id: string; option_text: string; created_at: Date; at: string; position_id: string }>(sql`
      SELECT pl.post_id, v.option_id, o.option_text, v.created_at, v.option_id AS position_id, ${positionAt(sql`v.created_at`)} AS at
      FROM poll_votes v JOIN poll_options o ON o.id = v.option_id JOIN polls pl ON pl.id = v.poll_id
      WHERE v.user_id = ${viewer.userId} AND ${olderThan(sql`v.created_at`, sql`v.option_id`, page.before)}
      ORDER BY v.created_at DESC, v.option_id DESC LIMIT ${page.limit}`);
    return withPositions(rows, (r) => ({ post: r.post_id, option: r.option_id, option_text: r.option_text, created_at: new Date(r.created_at).toISOString() }));
  },
};

/** The caller's answers to events (DESIGN.md section 13): which event, going or interested, since when. */
export const eventRsvpsExport: ExportSection = {
  name: 'event_rsvps',
  item: z.object({ post: z.string(), status: z.enum(['going', 'interested']), created_at: z.string(), updated_at: z.string() }),
  async load(viewer, page) {
    const { rows } = await platform.db.execute<{ post_id: string; status: 'going' | 'interested'; created_at: Date; updated_at: Date; at: string; position_id: string }>(sql`
      SELECT post_id, status, created_at, updated_at, post_id AS position_id, ${positionAt(sql`created_at`)} AS at FROM event_rsvps
      WHERE user_id = ${viewer.userId} AND ${olderThan(sql`created_at`, sql`post_id`, page.before)}
      ORDER BY created_at DESC, post_id DESC LIMIT ${page.limit}`);
    return withPositions(rows, (r) => ({ post: r.post_id, status: r.status, created_at: new Date(r.created_at).toISOString(), updated_at: new Date(r.updated_at).toISOString() }));
  },
};
