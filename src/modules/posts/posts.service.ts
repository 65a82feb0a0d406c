import { sql } from 'drizzle-orm';
import type { AuthedContext, RequestContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { requireOwner } from '../../core/ownership.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { loadPost, loadPosts } from './posts.queries.js';
import { serializePost, type PostBody } from './posts.serializer.js';
import { onCommunityPostDeleted } from './targets.js';
import { postListedFor, requireViewablePost } from '../policy/post-visibility.js';
import { postScope, recordDeletions } from '../deletions/deletions.service.js';
import './posts.events.js';
import { notBlockedWith, notHiddenFrom } from '../policy/visibility.js';

/** Reads and the author's delete. Lists load one page of ids, then the page's posts in one batch. */
export async function getPost(ctx: RequestContext, postId: string): Promise<PostBody> {
  const post = await loadPost(postId, ctx.user?.id ?? null, undefined, ctx.baseUrl);
  if (!post) throw notFound();
  await requireViewablePost(ctx.user, { communityId: post.communityId, authorId: post.author.id, hidden: post.hidden });
  return serializePost(post, ctx);
}

/**
 * Only the author deletes a post (403 for anyone else). Comments, likes, votes and views go with it
 * (foreign keys cascade); its files are removed from storage after the commit; `post:deleted` is pushed to
 * the rooms that heard of its creation and to the post's own room, and its tombstone lists it in the
 * `deleted` of realtime.sync for whoever could see it (its comments go with it: the post's tombstone stands
 * for them).
 */
export async function deletePost(ctx: AuthedContext, postId: string): Promise<void> {
  const files = await transaction(platform.db, async (tx, events) => {
    const { rows } = await tx.execute<{ user_id: string; location_id: string | null; community_id: string | null }>(sql`
      SELECT user_id, location_id, community_id FROM posts WHERE id = ${postId}::uuid FOR UPDATE`);
    const post = rows[0];
    if (!post) throw notFound();
    requireOwner(ctx.user, post.user_id);
    const { rows: stored } = await tx.execute<{ file: string }>(sql`
      SELECT file FROM post_media WHERE post_id = ${postId}::uuid UNION ALL SELECT file FROM post_audio WHERE post_id = ${postId}::uuid`);
    await tx.execute(sql`DELETE FROM posts WHERE id = ${postId}::uuid`);
    await recordDeletions(tx, [{ type: 'post', id: postId, authorId: post.user_id, ...postScope(postId, { locationId: post.location_id, communityId: post.community_id }) }]);
    if (post.community_id) await onCommunityPostDeleted(tx, post.community_id);
    events.add('post.deleted', { postId, locationId: post.location_id, communityId: post.community_id });
    return stored.map((r) => r.file);
  });
  await Promise.all(files.map((key) => platform.storage.delete(key).catch((err) => platform.log.warn({ err, key }, 'could not delete a post file'))));
}

type ReactionList = 'post_likes' | 'post_bookmarks';

/** The caller's liked or bookmarked posts, most recent reaction first (page size 20, at most 100). */
export async function reactedPosts(ctx: AuthedContext, list: ReactionList, path: string, input: { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const table = sql.identifier(list);
  const { rows } = await platform.db.execute<{ post_id: string; total: number }>(sql`
    SELECT r.post_id, count(*) OVER ()::int AS total FROM ${table} r JOIN posts p ON p.id = r.post_id
    WHERE r.user_id = ${ctx.user.id}::uuid AND ${notBlockedWith(ctx.user.id, sql`p.user_id`)} AND ${postListedFor(ctx.user.id)}
    ORDER BY r.created_at DESC, r.post_id LIMIT ${params.limit} OFFSET ${params.offset}`);
  const count = rows[0]?.total ?? (params.offset ? await countReactions(table, ctx.user.id) : 0);
  const posts = await loadPosts(rows.map((r) => r.post_id), ctx.user.id, undefined, ctx.baseUrl);
  return paginated(ctx, path, params, count, posts.map((p) => serializePost(p, ctx)));
}

async function countReactions(table: ReturnType<typeof sql.identifier>, userId: string): Promise<number> {
  const { rows } = await platform.db.execute<{ n: number }>(sql`
    SELECT count(*)::int AS n FROM ${table} r JOIN posts p ON p.id = r.post_id WHERE r.user_id = ${userId}::uuid AND ${notBlockedWith(userId, sql`p.user_id`)} AND ${postListedFor(userId)}`);
  return rows[0].n;
}

const twoDecimals = (x: number) => Math.round(x * 100) / 100;

/**
 * The caller's own viewing: views counted for them (each counted view, after the cooldown), distinct posts,
 * the share of views that were repeats, where the posts they view come from, and views per day since their
 * first counted view.
 */
export async function userAnalytics(ctx: AuthedContext) {
  const [{ rows: totals }, { rows: places }] = await Promise.all([
    platform.db.execute<{ total: number; unique_posts: number; days: number | null }>(sql`
      SELECT count(*)::int AS total, count(DISTINCT post_id)::int AS unique_posts,
             greatest(1, ceil(extract(epoch FROM (now() - min(created_at))) / 86400))::int AS days
      FROM post_views WHERE user_id = ${ctx.user.id}::uuid`),
    platform.db.execute<{ post__location__name: string; view_count: number }>(sql`
      SELECT l.name AS post__location__name, count(*)::int AS view_count
      FROM post_views v JOIN posts p ON p.id = v.post_id JOIN locations l ON l.id = p.location_id
      WHERE v.user_id = ${ctx.user.id}::uuid
      GROUP BY l.name ORDER BY count(*) DESC, l.name LIMIT 5`),
  ]);
  const { total, unique_posts: unique, days } = totals[0];
  return {
    total_views: total,
    unique_posts_viewed: unique,
    repeat_view_ratio: total ? twoDecimals((total - unique) / total) : 0,
    popular_locations: places,
    avg_views_per_day: total ? twoDecimals(total / (days ?? 1)) : 0,
  };
}

/** Compatibility read: a location's posts, newest first, with its name and total. */
export async function postsByLocation(ctx: RequestContext, input: { location_id: string; page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const { rows: location } = await platform.db.execute<{ name: string; total: number }>(sql`
    SELECT l.name, (SELECT count(*)::int FROM posts p WHERE p.location_id = l.id AND ${notHiddenFrom(ctx.user?.id, sql`p.user_id`)} AND ${postListedFor(ctx.user?.id)}) AS total
    FROM locations l WHERE l.id = ${input.location_id}::uuid`);
  if (!location.length) throw notFound();
  const { rows } = await platform.db.execute<{ id: string }>(sql`
    SELECT p.id FROM posts p WHERE p.location_id = ${input.location_id}::uuid AND ${notHiddenFrom(ctx.user?.id, sql`p.user_id`)} AND ${postListedFor(ctx.user?.id)}
    ORDER BY p.created_at DESC, p.id DESC LIMIT ${params.limit} OFFSET ${params.offset}`);
  const posts = await loadPosts(rows.map((r) => r.id), ctx.user?.id ?? null, undefined, ctx.baseUrl);
  return { location_name: location[0].name, total_posts: location[0].total, posts: posts.map((p) => serializePost(p, ctx)) };
}
