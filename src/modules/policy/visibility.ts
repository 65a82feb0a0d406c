import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { currentDb, type DbOrTx } from '../../platform/db.js';

/**
 * The one place that decides what a block or a mute hides (DESIGN.md section 9). Every read, list, search,
 * notification and push calls these; none repeats the rule.
 *
 * - A block works both ways: each person's posts, comments and account do not exist for the other.
 * - A mute works one way: the muter's lists (feeds, post lists, comments) leave the muted person out, while a read
 *   by id still answers, and the muted person sees nothing change.
 *
 * The list conditions are SQL, so that a list stays one query and its page and count agree: each is a NOT EXISTS on
 * a primary key (user_blocks, user_mutes), one index probe per candidate row; lists that test many rows for one
 * viewer (the feeds) read the viewer's hidden authors once per statement instead (`hiddenAuthorIdsOf`).
 */

/** A viewer: a user id, or a column holding one (a list of recipients); null or undefined is anonymous. */
type Viewer = string | SQLWrapper | null | undefined;

/** True for rows whose user (`userColumn`) is in no block with `viewerId`, either way. Anonymous viewers see all. */
export function notBlockedWith(viewerId: Viewer, userColumn: SQL): SQL {
  if (!viewerId) return sql`TRUE`;
  return sql`(NOT EXISTS (SELECT 1 FROM user_blocks sb WHERE sb.blocker_id = ${viewerId}::uuid AND sb.blocked_id = ${userColumn})
    AND NOT EXISTS (SELECT 1 FROM user_blocks sb WHERE sb.blocker_id = ${userColumn} AND sb.blocked_id = ${viewerId}::uuid))`;
}

/** True for rows whose author `viewerId` may see in a list: no block either way, and not muted by the viewer. */
export function notHiddenFrom(viewerId: Viewer, authorColumn: SQL): SQL {
  if (!viewerId) return sql`TRUE`;
  return sql`(${notBlockedWith(viewerId, authorColumn)}
    AND NOT EXISTS (SELECT 1 FROM user_mutes sm WHERE sm.muter_id = ${viewerId}::uuid AND sm.muted_id = ${authorColumn}))`;
}

/**
 * The authors `viewerId` does not see in lists, as one uuid[]: everyone in a block with the viewer either way and
 * everyone the viewer muted (the people notHiddenFrom leaves out). For a list that tests many candidate rows with
 * one viewer (the feeds): the statement reads the viewer's own few relations once (an uncorrelated sub-select,
 * which PostgreSQL runs once per statement: three index ranges of user_blocks and user_mutes), and each candidate
 * row costs a comparison with that array (`notAmongHiddenAuthors`), where notHiddenFrom costs three index probes
 * per row. Never for a viewer that is a column (a list of recipients): there the probes are the cheap form.
 */
export function hiddenAuthorIdsOf(viewerId: string | SQLWrapper): SQL {
  return sql`ARRAY(SELECT blocked_id FROM user_blocks WHERE blocker_id = ${viewerId}::uuid
    UNION SELECT blocker_id FROM user_blocks WHERE blocked_id = ${viewerId}::uuid
    UNION SELECT muted_id FROM user_mutes WHERE muter_id = ${viewerId}::uuid)`;
}

/** True for rows whose author is not among `hidden` (hiddenAuthorIdsOf's array, read once per statement). */
export function notAmongHiddenAuthors(hidden: SQL, authorColumn: SQL): SQL {
  return sql`${authorColumn} <> ALL(${hidden})`;
}

/**
 * Everyone in a block with `userId`, either way, and when the block between them began (the earlier one when both
 * blocked): rows (other_id, blocked_at). realtime.sync lists the other person's posts and comments that the caller
 * could see before that moment in `deleted` (DESIGN.md section 5), so a phone that was away drops them.
 */
export function blocksWith(userId: string): SQL {
  return sql`SELECT other_id, min(blocked_at) AS blocked_at FROM (
      SELECT blocked_id AS other_id, created_at AS blocked_at FROM user_blocks WHERE blocker_id = ${userId}::uuid
      UNION ALL SELECT blocker_id, created_at FROM user_blocks WHERE blocked_id = ${userId}::uuid) b
    GROUP BY other_id`;
}

/** Whether `userId` and any of `otherIds` blocked one another (either way): messages, reads by id. */
export async function isBlockedWithAny(userId: string | null | undefined, otherIds: readonly string[], db: DbOrTx = currentDb()): Promise<boolean> {
  if (!userId || !otherIds.length) return false;
  const found = await db.execute(sql`
    SELECT 1 FROM user_blocks
     WHERE (blocker_id = ${userId} AND blocked_id = ANY(${sql.param([...otherIds])}::uuid[]))
        OR (blocked_id = ${userId} AND blocker_id = ANY(${sql.param([...otherIds])}::uuid[]))
     LIMIT 1`);
  return found.rows.length > 0;
}

/**
 * Those of `otherIds` with no block either way with `userId`, in their order: who may still hear `userId`'s ephemeral
 * signals (typing, read receipts) in a conversation they share from before a block (DESIGN.md section 9, "Every path").
 */
export async function unblockedAmong(userId: string, otherIds: readonly string[], db: DbOrTx = currentDb()): Promise<string[]> {
  if (!otherIds.length) return [];
  const found = await db.execute<{ id: string }>(sql`
    SELECT o.id FROM unnest(${sql.param([...otherIds])}::uuid[]) WITH ORDINALITY AS o(id, ord)
     WHERE ${notBlockedWith(userId, sql`o.id`)}
     ORDER BY o.ord`);
  return found.rows.map((r) => r.id);
}

/** Whether a block, either way, stands between two people: a read by id of one's post or comment by the other is 404. */
export function isBlockedBetween(viewerId: string | null | undefined, authorId: string, db: DbOrTx = currentDb()): Promise<boolean> {
  return viewerId && viewerId !== authorId ? isBlockedWithAny(viewerId, [authorId], db) : Promise.resolve(false);
}

/**
 * The people whose live pushes (posts, comments) must not reach `userId`'s sockets: everyone in a block with them,
 * either way, and everyone they muted. Read when a socket signs in; the realtime layer puts the socket in each one's
 * hiding room, and pushes authored by that person are sent to their rooms except it.
 */
export async function hiddenAuthorIdsFor(userId: string, db: DbOrTx = currentDb()): Promise<string[]> {
  const found = await db.execute<{ id: string }>(sql`
    SELECT blocked_id AS id FROM user_blocks WHERE blocker_id = ${userId}
    UNION SELECT blocker_id FROM user_blocks WHERE blocked_id = ${userId}
    UNION SELECT muted_id FROM user_mutes WHERE muter_id = ${userId}`);
  return found.rows.map((r) => r.id);
}

/** Whether `viewerId` hides `authorId` now (a block either way, or a mute by the viewer). */
export async function hidesAuthor(viewerId: string, authorId: string, db: DbOrTx = currentDb()): Promise<boolean> {
  const found = await db.execute(sql`SELECT 1 AS one WHERE ${notHiddenFrom(viewerId, sql`${authorId}::uuid`)}`);
  return found.rows.length === 0;
}

/**
 * Moderation (DESIGN.md section 9): a post or comment hidden by staff, or by auto-hide, is gone for everyone except
 * its author, who keeps it (a read by id, their lists and feeds, their sync), and staff, who read it by id while
 * they review. The post rule (policy/post-visibility.ts) calls these for reads by id; lists call the SQL twin.
 */
export type ModerationViewer = { id: string; isStaff?: boolean; isAdmin?: boolean } | null | undefined;

/** Whether moderation took this item away from `viewer`. */
export function moderatedAway(viewer: ModerationViewer, item: { hidden: boolean; authorId: string }): boolean {
  if (!item.hidden) return false;
  return !viewer || (viewer.id !== item.authorId && !viewer.isStaff && !viewer.isAdmin);
}

/**
 * The SQL twin of `moderatedAway` for lists: true for rows not hidden, or hidden and written by `viewerId`. Staff
 * see lists as everyone does (they review hidden items through the moderation queue and reads by id).
 */
export function notModeratedAway(viewerId: Viewer, hiddenAtColumn: SQL, authorColumn: SQL): SQL {
  if (!viewerId) return sql`${hiddenAtColumn} IS NULL`;
  return sql`(${hiddenAtColumn} IS NULL OR ${authorColumn} = ${viewerId}::uuid)`;
}
