import { sql } from 'drizzle-orm';
import type { PendingEvents } from '../../core/events.js';
import { AppError, fieldError } from '../../core/errors.js';
import type { Tx } from '../../platform/db.js';
import type { PostType } from '../../models/index.js';
import { queueCommunityPostFanout } from './community-fanout.service.js';
import { isCommunityMember, loadCommunitySummaries } from '../communities/summaries.js';
import { loadProductSummaries, loadStoreSummaries } from '../stores/summaries.js';

/**
 * Where a post goes (the author's location, or a community) and what a share post points at, checked before
 * anything is stored. A community post has no location; it needs the author's membership. Communities that
 * were deleted are gone (their rows are deleted), so existence is a row in `communities`.
 */
export type PostTarget = { kind: 'location'; locationId: string } | { kind: 'community'; communityId: string };

export const LOCATION_REQUIRED_BODY = {
  error: 'Location Required',
  message: 'Set your location before posting: neighbourhood posts go to the place you live.',
  action: 'update_location',
} as const;

export const membershipRequired = (communityId: string) =>
  new AppError(400, {
    error: 'Community Membership Required',
    message: 'Join this community to post in it.',
    action: 'join_community',
    community_id: communityId,
  });

export async function checkPostTarget(
  userId: string,
  communityId: string | undefined,
  authorLocation: () => Promise<{ id: string } | null>,
): Promise<PostTarget> {
  if (communityId) {
    const found = await loadCommunitySummaries([communityId]);
    if (!found.has(communityId)) throw fieldError('community_id', 'Community not found.');
    if (!(await isCommunityMember(communityId, userId))) throw membershipRequired(communityId);
    return { kind: 'community', communityId };
  }
  const location = await authorLocation();
  if (!location) throw new AppError(400, { ...LOCATION_REQUIRED_BODY });
  return { kind: 'location', locationId: location.id };
}

export async function checkShareTarget(input: { post_type: PostType; shared_product_id?: string; shared_store_id?: string; shared_community_id?: string; recommended_store_id?: string }): Promise<void> {
  if (input.post_type === 'product_share') {
    if (!(await loadProductSummaries([input.shared_product_id!])).size) throw fieldError('shared_product_id', 'Product not found.');
  } else if (input.post_type === 'store_share') {
    if (!(await loadStoreSummaries([input.shared_store_id!])).size) throw fieldError('shared_store_id', 'Store not found.');
  } else if (input.post_type === 'recommendation') {
    if (!(await loadStoreSummaries([input.recommended_store_id!])).size) throw fieldError('recommended_store_id', 'Store not found.');
  } else if (input.post_type === 'community_share') {
    if (!(await loadCommunitySummaries([input.shared_community_id!])).size) throw fieldError('shared_community_id', 'Community not found.');
  }
}

/**
 * In the post's transaction: the community's `posts_count` moves (its row lock also orders this post after a
 * concurrent leave, so membership is checked again under it), and the `new_post` fan-out to every other member
 * is queued as one outbox row, written to the members after the commit (community-fanout.service.ts): the post
 * neither holds the community's lock nor grows with its audience.
 */
export async function onCommunityPostCreated(
  tx: Tx,
  events: PendingEvents,
  post: { postId: string; communityId: string; actorId: string; actorUsername: string },
): Promise<void> {
  const { rows } = await tx.execute<{ name: string }>(sql`
    UPDATE communities SET posts_count = posts_count + 1 WHERE id = ${post.communityId}::uuid RETURNING name`);
  if (!rows.length) throw fieldError('community_id', 'Community not found.');
  if (!(await isCommunityMember(post.communityId, post.actorId))) throw membershipRequired(post.communityId);
  await queueCommunityPostFanout(tx, events, {
    postId: post.postId,
    communityId: post.communityId,
    actorId: post.actorId,
    message: `${post.actorUsername} posted in ${rows[0].name}`,
  });
}

export async function onCommunityPostDeleted(tx: Tx, communityId: string): Promise<void> {
  await tx.execute(sql`UPDATE communities SET posts_count = greatest(0, posts_count - 1) WHERE id = ${communityId}::uuid`);
}

/** Before an account's posts are deleted: each community it posted in counts them out, in one statement. */
export async function onCommunityPostsDeletedBy(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`
    UPDATE communities c SET posts_count = greatest(0, c.posts_count - x.n)
    FROM (SELECT community_id, count(*)::int AS n FROM posts WHERE user_id = ${userId}::uuid AND community_id IS NOT NULL GROUP BY community_id) x
    WHERE c.id = x.community_id`);
}
