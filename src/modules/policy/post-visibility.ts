import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { AppError, notAuthenticated, notFound } from '../../core/errors.js';
import { hiddenAuthorIdsOf, isBlockedBetween, moderatedAway, notAmongHiddenAuthors, notHiddenFrom, notModeratedAway } from './visibility.js';
import { findPostHead, type PostHead } from './heads.js';

/**
 * THE rule of who may see a post, and so its comments, replies, view count, its `post:<id>` room and, for a
 * community's posts, the community's room and those posts in realtime.sync. Every one of those paths calls
 * this file: `canViewPost` / `requireViewablePost` for one post, `canViewCommunityPosts` /
 * `requireCommunityPostsViewer` for a community's room and realtime.sync's rooms.
 *
 * The community part needs no SQL twin: the lists open to anonymous callers (posts.by_location, feeds, displays)
 * select neighbourhood posts by location, which community posts never have, and every community post is
 * visible to any signed-in caller. A rule that hides posts from signed-in callers (blocks, moderation, private
 * communities) must add its SQL twin here, beside `canViewPost`, and the lists must call it.
 *
 * The rule (docs/modules/communities.md): a neighbourhood post is public (the contract reads single posts without a
 * token). A community's posts are for signed-in users, members or not: every community operation of the
 * contract needs a token, so a community is public to signed-in users and closed to anonymous callers.
 * A refused anonymous caller is told to sign in (401); a refused signed-in caller would be told the post does
 * not exist (404), so nothing of a hidden post leaks.
 *
 * Blocks (DESIGN.md section 9): a post of someone in a block with the viewer, either way, does not exist for the
 * viewer (404), nor do its comments, its room or its view count. Lists apply the same rule in SQL through
 * `notBlockedWith` / `notHiddenFrom` of policy/visibility.ts.
 *
 * Moderation (DESIGN.md section 9): a post hidden by staff or by auto-hide does not exist (404) for anyone but its
 * author and staff, nor do its comments, its room or its view count; a hidden comment likewise, for anyone but its
 * author and staff. Lists apply it in SQL through `postListedFor` / `commentListedFor` below.
 */
export type Viewer = { id: string; isStaff?: boolean; isAdmin?: boolean } | null;

export function canViewCommunityPosts(viewer: Viewer, _communityId: string): boolean {
  return viewer !== null;
}

export function canViewPost(viewer: Viewer, post: { communityId: string | null }): boolean {
  return post.communityId === null || canViewCommunityPosts(viewer, post.communityId);
}

const refusal = (viewer: Viewer): AppError => (viewer ? notFound() : notAuthenticated());

/** Whether `viewer` may see this post: its audience, its moderation, and no block between the viewer and its author. */
export async function mayViewPost(viewer: Viewer, post: { communityId: string | null; authorId: string; hidden: boolean }): Promise<boolean> {
  return canViewPost(viewer, post) && !moderatedAway(viewer, post) && !(await isBlockedBetween(viewer?.id, post.authorId));
}

export async function requireViewablePost(viewer: Viewer, post: { communityId: string | null; authorId: string; hidden: boolean }): Promise<void> {
  if (!canViewPost(viewer, post)) throw refusal(viewer);
  if (moderatedAway(viewer, post)) throw notFound();
  if (await isBlockedBetween(viewer?.id, post.authorId)) throw notFound();
}

/**
 * The same rule for a post known by its id only (a like, a bookmark, a vote, a comment's like): a post that does
 * not exist for the viewer cannot be touched either, so a blocked person cannot like, vote on or bookmark it, and
 * nobody but its author and staff can touch a hidden one.
 */
export async function requireViewablePostById(viewer: Viewer, postId: string): Promise<PostHead> {
  const post = await findPostHead(postId);
  if (!post) throw notFound();
  await requireViewablePost(viewer, { communityId: post.communityId, authorId: post.userId, hidden: post.hidden });
  return post;
}

/**
 * A comment read on its own (its replies, a report of it): its post's rule, then the comment's own moderation and
 * a block with its author (which lists apply through notHiddenFrom).
 */
export async function requireViewableComment(
  viewer: Viewer,
  comment: { authorId: string; hidden: boolean },
  post: { communityId: string | null; authorId: string; hidden: boolean },
): Promise<void> {
  await requireViewablePost(viewer, post);
  if (moderatedAway(viewer, comment)) throw notFound();
  if (await isBlockedBetween(viewer?.id, comment.authorId)) throw notFound();
}

type ViewerId = string | SQLWrapper | null | undefined;

/** The SQL twin of the moderation part of the rule for lists of posts (`alias`: the posts row): a hidden post is listed for its author alone. */
export function postListedFor(viewerId: ViewerId, alias = 'p'): SQL {
  return notModeratedAway(viewerId, sql.raw(`${alias}.hidden_at`), sql.raw(`${alias}.user_id`));
}

/** The same for lists of comments (`alias`: the comments row). */
export function commentListedFor(viewerId: ViewerId, alias = 'c'): SQL {
  return notModeratedAway(viewerId, sql.raw(`${alias}.hidden_at`), sql.raw(`${alias}.user_id`));
}

export function requireCommunityPostsViewer(viewer: Viewer, communityId: string): void {
  if (!canViewCommunityPosts(viewer, communityId)) throw refusal(viewer);
}

/**
 * The whole rule as one SQL condition, for a list that can reach posts of any audience (search, a store's
 * recommendations): a community's posts for signed-in callers only, a hidden post for its author alone, nobody in a
 * block with the caller either way, nor anyone the caller muted (`alias`: the posts row).
 */
export function postVisibleInListTo(viewerId: string | null, alias = 'p'): SQL {
  const a = sql.raw(alias);
  return sql`(${viewerId ? sql`TRUE` : sql`${a}.community_id IS NULL`}) AND ${postListedFor(viewerId, alias)} AND ${notHiddenFrom(viewerId, sql`${a}.user_id`)}`;
}

/**
 * The same rule for a list that tests many candidate posts for one viewer (search's newest matches): the viewer's
 * blocks both ways and mutes are read once per statement (`hiddenAuthorIdsOf`) and each candidate is compared with
 * that array, instead of three index probes per candidate (and three anti-joins for the planner to order).
 */
export function postVisibleInManyTo(viewerId: string | null, alias = 'p'): SQL {
  const a = sql.raw(alias);
  if (!viewerId) return sql`${a}.community_id IS NULL AND ${postListedFor(viewerId, alias)}`;
  return sql`${postListedFor(viewerId, alias)} AND ${notAmongHiddenAuthors(hiddenAuthorIdsOf(viewerId), sql`${a}.user_id`)}`;
}
