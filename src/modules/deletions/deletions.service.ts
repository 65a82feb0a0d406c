import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db.js';
import type { DeletionType } from '../../models/deletions.js';

/**
 * An item that went away, and where it lived: the columns realtime.sync matches against the caller's rooms to
 * decide who could have seen it (migration 0019). A neighbourhood post or a comment on one: `locationId`; a
 * community post or a comment on one: `communityId` (no location); `postId`: the post itself or a comment's post;
 * a message: `conversationId`.
 */
export interface Tombstone {
  type: DeletionType;
  id: string;
  authorId?: string | null;
  locationId?: string | null;
  communityId?: string | null;
  postId?: string | null;
  conversationId?: string | null;
}

/**
 * Where a post's items lived, as post:created is routed and realtime.sync reads posts: a neighbourhood post in
 * its location's room, a community post in its community's room only; both in the post's own room.
 */
export function postScope(postId: string, post: { locationId: string | null; communityId: string | null }): Pick<Tombstone, 'locationId' | 'communityId' | 'postId'> {
  return { locationId: post.communityId ? null : post.locationId, communityId: post.communityId, postId };
}

/**
 * The one way to record deletions, in the transaction that deletes (so a rolled-back delete leaves none, and a
 * committed one always has its tombstone). Every source (an author's delete, a community's deletion, later
 * moderation and account deletion) writes through here: one statement however many items.
 */
export async function recordDeletions(tx: DbOrTx, tombstones: readonly Tombstone[]): Promise<void> {
  if (!tombstones.length) return;
  const column = <K extends keyof Tombstone>(key: K) => sql.param(tombstones.map((t) => t[key] ?? null));
  await tx.execute(sql`
    INSERT INTO deletions (type, item_id, author_id, location_id, community_id, post_id, conversation_id)
    SELECT * FROM unnest(${column('type')}::text[], ${column('id')}::uuid[], ${column('authorId')}::uuid[],
      ${column('locationId')}::uuid[], ${column('communityId')}::uuid[], ${column('postId')}::uuid[], ${column('conversationId')}::uuid[])`);
}

/**
 * The set-based form of recordDeletions, for deletions too many to bring into the service (an account's 50,000
 * posts): `rows` is a query yielding (type, item_id, author_id, location_id, community_id, post_id, conversation_id)
 * in that order. Answers the INSERT itself, so that it can also run as one step of a larger statement (a CTE).
 */
export const tombstonesFrom = (rows: SQL): SQL =>
  sql`INSERT INTO deletions (type, item_id, author_id, location_id, community_id, post_id, conversation_id) ${rows}`;

export async function recordDeletionsFrom(tx: DbOrTx, rows: SQL): Promise<void> {
  await tx.execute(tombstonesFrom(rows));
}

/** `postScope` in SQL, for the posts row aliased `alias`: its (location_id, community_id) columns of a tombstone. */
export const postScopeColumns = (alias: string): SQL => {
  const p = sql.identifier(alias);
  return sql`CASE WHEN ${p}.community_id IS NULL THEN ${p}.location_id END, ${p}.community_id`;
};

/**
 * Before a community's row (and with it its memberships) is deleted: remember who its members were, so that
 * their next realtime.sync still covers that community and lists its posts in `deleted`.
 */
export async function recordFormerMembers(tx: DbOrTx, communityId: string): Promise<void> {
  await tx.execute(sql`
    INSERT INTO deleted_community_members (user_id, community_id)
    SELECT user_id, community_id FROM community_members WHERE community_id = ${communityId}::uuid
    ON CONFLICT (user_id, community_id) DO UPDATE SET deleted_at = excluded.deleted_at`);
}
