import { sql } from 'drizzle-orm';
import { currentDb } from '../../platform/db.js';
import type { DeletionType } from '../../models/deletions.js';
import type { SyncRooms } from './sync-scope.js';
import { commentListedFor, postListedFor } from '../posts/post-visibility.js';

/** An item of realtime.sync's `deleted` (DESIGN.md section 5). */
export interface DeletionBody {
  type: DeletionType;
  id: string;
  deleted_at: string;
}

/**
 * Tombstones (src/modules/deletions) after a (deleted_at, id) position that the caller could have seen, oldest
 * first. "Could have seen" is the rule that gives it live items in the same sync, applied to where the item
 * lived: the location and community rooms of `rooms` (its own place and communities, its subscriptions, the
 * rooms REST names) plus the communities it belonged to when they were deleted (their memberships are gone);
 * the posts its socket watches (`subscribe {channel: 'post'}`, where comments are pushed); its conversations.
 * One range scan per room on the indexes of migration 0019, merged (an item in two of the caller's rooms once)
 * and cut.
 *
 * A post or comment hidden by moderation has a tombstone but still exists: its author keeps it, and a dismissed
 * report restores it. A tombstone whose item the caller can list now is therefore null here (its position still
 * counts): `deleted` names only what is gone for this caller, and a restored post comes back in `posts`.
 */
export async function deletionsAfter(
  userId: string,
  rooms: SyncRooms & { postIds: readonly string[] },
  after: { at: string; id: string },
  limit: number,
): Promise<Array<{ deletion: DeletionBody | null; position: { at: string; id: string } }>> {
  const position = sql`(${after.at}::timestamptz, ${after.id}::uuid)`;
  const afterPosition = (column: string, room: ReturnType<typeof sql.raw>) => sql`
    SELECT id, type, item_id, deleted_at FROM deletions
    WHERE ${sql.identifier(column)} = ${room} AND (deleted_at, id) > ${position}
    ORDER BY deleted_at, id LIMIT ${limit}`;
  const { rows } = await currentDb().execute<{ id: string; type: DeletionType; item_id: string; deleted_at: string; at: string; present: boolean }>(sql`
    WITH community_rooms AS (
      SELECT unnest(${sql.param(rooms.communityIds)}::uuid[]) AS id
      UNION
      SELECT community_id FROM deleted_community_members WHERE user_id = ${userId}::uuid
    ), mine AS (
      SELECT d.* FROM unnest(${sql.param(rooms.locationIds)}::uuid[]) AS room(id)
      CROSS JOIN LATERAL (${afterPosition('location_id', sql.raw('room.id'))}) d
      UNION
      SELECT d.* FROM community_rooms room CROSS JOIN LATERAL (${afterPosition('community_id', sql.raw('room.id'))}) d
      UNION
      SELECT d.* FROM unnest(${sql.param([...rooms.postIds])}::uuid[]) AS room(id)
      CROSS JOIN LATERAL (${afterPosition('post_id', sql.raw('room.id'))}) d
      UNION
      SELECT d.* FROM conversation_participants room
      CROSS JOIN LATERAL (${afterPosition('conversation_id', sql.raw('room.conversation_id'))}) d
      WHERE room.user_id = ${userId}::uuid
    )
    SELECT id, type, item_id,
      to_char(deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS deleted_at,
      to_char(deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at,
      CASE type
        WHEN 'post' THEN EXISTS (SELECT 1 FROM posts p WHERE p.id = mine.item_id AND ${postListedFor(userId)})
        WHEN 'comment' THEN EXISTS (SELECT 1 FROM comments c WHERE c.id = mine.item_id AND ${commentListedFor(userId)})
        ELSE false END AS present
    FROM mine ORDER BY mine.deleted_at, id LIMIT ${limit}`);
  return rows.map((r) => ({ deletion: r.present ? null : { type: r.type, id: r.item_id, deleted_at: r.deleted_at }, position: { at: r.at, id: r.id } }));
}

/** The posts a socket watches (`subscribe {channel: 'post'}`), each checked when it was made; none over REST. */
export function watchedPostIds(subscriptions: ReadonlyArray<{ channel: string; id: string }> | undefined): string[] {
  return (subscriptions ?? []).filter((s) => s.channel === 'post').map((s) => s.id);
}
