import { AppError, notAuthenticated, notFound } from '../../core/errors.js';
import { isBlockedBetween } from '../safety/visibility.js';
import { findPostHead, type PostHead } from './posts.queries.js';

/**
 * THE rule of who may see a post, and so its comments, replies, view count, its `post:<id>` room and, for a
 * community's posts, the community's room and those posts in realtime.sync. Every one of those paths calls
 * this file: `canViewPost` / `requireViewablePost` for one post, `canViewCommunityPosts` /
 * `requireCommunityPostsViewer` for a community's room and realtime.sync's rooms.
 *
 * No list filters by it in SQL today: the lists open to anonymous callers (posts.by_location, feeds, displays)
 * select neighbourhood posts by location, which community posts never have, and every community post is
 * visible to any signed-in caller. A rule that hides posts from signed-in callers (blocks, private communities)
 * must add its SQL twin here, beside `canViewPost`, and the lists must call it.
 *
 * The rule (docs/modules/communities.md): a neighbourhood post is public (the contract reads single posts without a
 * token). A community's posts are for signed-in users, members or not: every community operation of the
 * contract needs a token, so a community is public to signed-in users and closed to anonymous callers.
 * A refused anonymous caller is told to sign in (401); a refused signed-in caller would be told the post does
 * not exist (404), so nothing of a hidden post leaks.
 *
 * Blocks (DESIGN.md section 9): a post of someone in a block with the viewer, either way, does not exist for the
 * viewer (404), nor do its comments, its room or its view count. Lists apply the same rule in SQL through
 * `notBlockedWith` / `notHiddenFrom` of safety/visibility.ts.
 */
export type Viewer = { id: string } | null;

export function canViewCommunityPosts(viewer: Viewer, _communityId: string): boolean {
  return viewer !== null;
}

export function canViewPost(viewer: Viewer, post: { communityId: string | null }): boolean {
  return post.communityId === null || canViewCommunityPosts(viewer, post.communityId);
}

const refusal = (viewer: Viewer): AppError => (viewer ? notFound() : notAuthenticated());

/** Whether `viewer` may see this post: its audience, and no block between the viewer and its author. */
export async function mayViewPost(viewer: Viewer, post: { communityId: string | null; authorId: string }): Promise<boolean> {
  return canViewPost(viewer, post) && !(await isBlockedBetween(viewer?.id, post.authorId));
}

export async function requireViewablePost(viewer: Viewer, post: { communityId: string | null; authorId: string }): Promise<void> {
  if (!canViewPost(viewer, post)) throw refusal(viewer);
  if (await isBlockedBetween(viewer?.id, post.authorId)) throw notFound();
}

/**
 * The same rule for a post known by its id only (a like, a bookmark, a vote, a comment's like): a post that does
 * not exist for the viewer cannot be touched either, so a blocked person cannot like, vote on or bookmark it.
 */
export async function requireViewablePostById(viewer: Viewer, postId: string): Promise<PostHead> {
  const post = await findPostHead(postId);
  if (!post) throw notFound();
  await requireViewablePost(viewer, { communityId: post.communityId, authorId: post.userId });
  return post;
}

export function requireCommunityPostsViewer(viewer: Viewer, communityId: string): void {
  if (!canViewCommunityPosts(viewer, communityId)) throw refusal(viewer);
}
