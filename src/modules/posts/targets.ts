import type { PendingEvents } from '../../core/events.js';
import { AppError, fieldError } from '../../core/errors.js';
import type { Tx } from '../../platform/db.js';
import type { PostType } from '../../models/index.js';

/**
 * Where a post goes (the author's location, or a community) and what a share post points at. Communities,
 * stores and products belong to modules built alongside this one; until they are on main, community posts
 * and share posts are refused with a field error rather than stored with ids nobody can check.
 */
export type PostTarget = { kind: 'location'; locationId: string } | { kind: 'community'; communityId: string };

export const LOCATION_REQUIRED_BODY = {
  error: 'Location Required',
  message: 'Set your location before posting: neighbourhood posts go to the place you live.',
  action: 'update_location',
} as const;

export async function checkPostTarget(
  _userId: string,
  communityId: string | undefined,
  authorLocation: () => Promise<{ id: string } | null>,
): Promise<PostTarget> {
  if (communityId) throw fieldError('community_id', 'Community posts are not available yet.');
  const location = await authorLocation();
  if (!location) throw new AppError(400, { ...LOCATION_REQUIRED_BODY });
  return { kind: 'location', locationId: location.id };
}

export async function checkShareTarget(input: { post_type: PostType }): Promise<void> {
  if (input.post_type === 'product_share' || input.post_type === 'store_share' || input.post_type === 'community_share') {
    throw fieldError('post_type', `"${input.post_type}" posts are not available yet.`);
  }
}

export async function onCommunityPostCreated(
  _tx: Tx,
  _events: PendingEvents,
  _post: { postId: string; communityId: string; actorId: string; actorUsername: string },
): Promise<void> {}

export async function onCommunityPostDeleted(_tx: Tx, _communityId: string): Promise<void> {}
