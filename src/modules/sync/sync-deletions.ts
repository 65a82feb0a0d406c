import { sql } from 'drizzle-orm';
import { currentDb } from '../../platform/db.js';
import type { DeletionType } from '../../models/deletions.js';
import type { SyncRooms } from './sync-scope.js';
import { commentListedFor, postListedFor } from '../policy/post-visibility.js';
import { blocksWith, notBlockedWith } from '../policy/visibility.js';

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
 * A block hides without deleting: for each person in a block with the caller made after the position, their posts
 * and comments in those same rooms from before the block are listed too, at the block's moment (their position is
 * (block's created_at, item id)), computed here rather than written per viewer. Unblocked, they are no longer listed.
 * Left out as listed already: items hidden by moderation (their tombstone), and comments under the other person's
 * own posts (the post stands for its comments, as a deleted post's tombstone does).
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
  // Where a post lived, as realtime.sync reads live posts: a neighbourhood post in its location's room, a community
  // post in its community's room (community_rooms below), and any post the socket watches.
  const inRooms = (alias: string) => {
    const p = sql.identifier(alias);
    return sql`((${p}.community_id IS NULL AND ${p}.location_id = ANY(${sql.param(rooms.locationIds)}::uuid[]))
      OR ${p}.community_id IN (SELECT id FROM community_rooms) OR ${p}.id = ANY(${sql.param([...rooms.postIds])}::uuid[]))`;
  };
  const { rows } = await currentDb().execute<{ id: string; type: DeletionType; item_id: string; deleted_at: string; at: string; present: boolean }>(sql`
    WITH community_rooms AS (
      SELECT unnest(${sql.param(rooms.communityIds)}::uuid[]) AS id
      UNION
      SELECT community_id FROM deleted_community_members WHERE user_id = ${userId}::uuid
    ), blocked AS (
      SELECT other_id, blocked_at FROM (${blocksWith(userId)}) b WHERE blocked_at >= ${after.at}::timestamptz
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
      UNION
      SELECT d.* FROM blocked CROSS JOIN LATERAL (
        SELECT p.id, 'post'::text AS type, p.id AS item_id, blocked.blocked_at AS deleted_at FROM posts p
        WHERE p.user_id = blocked.other_id AND p.created_at < blocked.blocked_at AND p.hidden_at IS NULL AND ${inRooms('p')}
          AND (blocked.blocked_at, p.id) > ${position}
        ORDER BY p.id LIMIT ${limit}) d
      UNION
      SELECT d.* FROM blocked CROSS JOIN LATERAL (
        SELECT c.id, 'comment'::text AS type, c.id AS item_id, blocked.blocked_at AS deleted_at
        FROM comments c JOIN posts p ON p.id = c.post_id
        WHERE c.user_id = blocked.other_id AND c.created_at < blocked.blocked_at AND c.hidden_at IS NULL
          AND p.user_id <> blocked.other_id AND ${inRooms('p')} AND (blocked.blocked_at, c.id) > ${position}
        ORDER BY c.id LIMIT ${limit}) d
    )
    SELECT id, type, item_id,
      to_char(deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS deleted_at,
      to_char(deleted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at,
      CASE type
        WHEN 'post' THEN EXISTS (SELECT 1 FROM posts p WHERE p.id = mine.item_id AND ${postListedFor(userId)}
          AND ${notBlockedWith(userId, sql`p.user_id`)})
        WHEN 'comment' THEN EXISTS (SELECT 1 FROM comments c WHERE c.id = mine.item_id AND ${commentListedFor(userId)}
          AND ${notBlockedWith(userId, sql`c.user_id`)})
        ELSE false END AS present
    FROM mine ORDER BY mine.deleted_at, id LIMIT ${limit}`);
  return rows.map((r) => ({ deletion: r.present ? null : { type: r.type, id: r.item_id, deleted_at: r.deleted_at }, position: { at: r.at, id: r.id } }));
}

/** The posts a socket watches (`subscribe {channel: 'post'}`), each checked when it was made; none over REST. */
export function watchedPostIds(subscriptions: ReadonlyArray<{ channel: string; id: string }> | undefined): string[] {
  return (subscriptions ?? []).filter((s) => s.channel === 'post').map((s) => s.id);
}
