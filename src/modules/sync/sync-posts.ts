import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { currentDb } from '../../platform/db.js';
import { loadPosts } from '../posts/posts.queries.js';
import { notHiddenFrom } from '../policy/visibility.js';
import { serializePost, type PostBody } from '../posts/posts.serializer.js';
import { postListedFor } from '../policy/post-visibility.js';
import type { SyncRooms } from './sync-scope.js';

/**
 * Posts of the given rooms changed after a (updated_at, id) position, oldest first (realtime.sync), as the
 * `post:created` push carries them: a neighbourhood post (no community) belongs to its location's room, a
 * community post to its community's room only. One range scan per room (indexes of migration 0015, through a
 * LATERAL join), merged and cut; then the page is loaded as the posts module loads posts, for an anonymous
 * viewer (has_liked, has_bookmarked, user_voted as in the pushed payload). Authors the viewer blocked, was blocked
 * by or muted are left out, as their live pushes are (DESIGN.md section 9): the position moves past them. A post
 * hidden by moderation is left out but for its author (post-visibility.ts); its tombstone lists it in `deleted`
 * for the others.
 */
export async function postsChangedAfter(
  rooms: SyncRooms,
  after: { at: string; id: string },
  limit: number,
  ctx: Pick<AuthedContext, 'baseUrl' | 'user'>,
): Promise<Array<{ post: PostBody | null; position: { at: string; id: string } }>> {
  if (!rooms.locationIds.length && !rooms.communityIds.length) return [];
  const position = sql`(${after.at}::timestamptz, ${after.id}::uuid)`;
  const visible = notHiddenFrom(ctx.user.id, sql`p.user_id`);
  const db = currentDb();
  const heads = await db.execute<{ id: string; at: string }>(sql`
    SELECT id, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at FROM (
      SELECT p.id, p.updated_at FROM unnest(${sql.param(rooms.locationIds)}::uuid[]) AS room(id)
      CROSS JOIN LATERAL (
        SELECT p.id, p.updated_at FROM posts p
        WHERE p.location_id = room.id AND p.community_id IS NULL AND (p.updated_at, p.id) > ${position} AND ${postListedFor(ctx.user.id)} AND ${visible}
        ORDER BY p.updated_at, p.id LIMIT ${limit}) p
      UNION ALL
      SELECT p.id, p.updated_at FROM unnest(${sql.param(rooms.communityIds)}::uuid[]) AS room(id)
      CROSS JOIN LATERAL (
        SELECT p.id, p.updated_at FROM posts p
        WHERE p.community_id = room.id AND (p.updated_at, p.id) > ${position} AND ${postListedFor(ctx.user.id)} AND ${visible}
        ORDER BY p.updated_at, p.id LIMIT ${limit}) p
    ) mine
    ORDER BY updated_at, id
    LIMIT ${limit}`);
  const ids = heads.rows.map((r) => r.id);
  const records = await loadPosts(ids, null, db, ctx.baseUrl);
  const byId = new Map(records.map((r) => [r.id, r]));
  // A post deleted between the two reads is null (left out: its tombstone lists it in `deleted`), its position kept.
  return heads.rows.map((h) => {
    const record = byId.get(h.id);
    return { post: record ? serializePost(record, ctx) : null, position: { at: h.at, id: h.id } };
  });
}
