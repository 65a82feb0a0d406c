import { sql } from 'drizzle-orm';
import type { RequestContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { currentDb } from '../../platform/db.js';
import { loadPosts } from '../posts/posts.queries.js';
import { serializePost } from '../posts/posts.serializer.js';
import { neighbourhoodOf } from '../feeds/scope.queries.js';
import { TAG_RE } from './query-parser.js';
import { postVisibleTo, tagUsesIndexed, type Origin } from './search.queries.js';
import { resolveOrigin, SEARCH_PAGE } from './search.service.js';

export const TRENDING_WINDOW_HOURS = 24;
export const TRENDING_MAX = 10;

/**
 * Trending near a place: the tags of the neighbourhood posts of the last 24 hours of the place and its neighbours
 * (feeds' neighbourhood: the places whose boundary comes within 1 km of its own), ranked by how many different people
 * used them, then by posts. Read from posts_tag_uses_idx (migration 0035: the tagged neighbourhood posts that are not
 * hidden, by place and time, with their author and tags), one index range per place: never all posts. Posts hidden by
 * moderation and people who are not discoverable do not count.
 */
export async function trendingTagsNear(locationId: string, limit = TRENDING_MAX): Promise<Array<{ tag: string; posts_count: number; people_count: number }>> {
  const places = await neighbourhoodOf(locationId);
  const ids = places.length ? places.map((p) => p.locationId) : [locationId];
  const { rows } = await currentDb().execute<{ tag: string; posts_count: number; people_count: number }>(sql`
    SELECT t.tag, count(DISTINCT p.id)::int AS posts_count, count(DISTINCT p.user_id)::int AS people_count
      FROM posts p CROSS JOIN LATERAL unnest(p.tags) AS t(tag) JOIN users u ON u.id = p.user_id
     WHERE ${tagUsesIndexed} AND p.location_id = ANY(${sql.param(ids)}::uuid[])
       AND p.created_at > now() - make_interval(hours => ${TRENDING_WINDOW_HOURS}) AND u.discoverable
     GROUP BY t.tag
     ORDER BY people_count DESC, posts_count DESC, t.tag
     LIMIT ${limit}`);
  return rows.map((r) => ({ tag: r.tag, posts_count: Number(r.posts_count), people_count: Number(r.people_count) }));
}

async function requirePlace(locationId: string): Promise<void> {
  const { rows } = await currentDb().execute(sql`SELECT 1 FROM locations WHERE id = ${locationId}::uuid`);
  if (!rows.length) throw notFound();
}

export async function trendingTags(_ctx: RequestContext, locationId: string) {
  await requirePlace(locationId);
  return { location_id: locationId, results: await trendingTagsNear(locationId) };
}

/** The statement of a tag feed's page: the posts with the tag that the caller may read, nearest place first, then newest. */
export function tagFeedStatement(tag: string, viewerId: string | null, origin: Origin, page: { limit: number; offset: number }) {
  const dist = origin
    ? sql`ST_Distance(coalesce(l.center, l.point), ST_SetSRID(ST_MakePoint(${origin.longitude}::float8, ${origin.latitude}::float8), 4326)::geography, false)`
    : sql`NULL::float8`;
  return sql`
    SELECT p.id, ${dist} AS distance, count(*) OVER ()::int AS total
      FROM posts p JOIN users u ON u.id = p.user_id LEFT JOIN locations l ON l.id = p.location_id
     WHERE p.tags @> ARRAY[${tag}]::text[] AND (u.discoverable ${viewerId ? sql`OR u.id = ${viewerId}::uuid` : sql``}) AND ${postVisibleTo(viewerId)}
     ORDER BY distance ASC NULLS LAST, p.created_at DESC, p.id
     LIMIT ${page.limit} OFFSET ${page.offset}`;
}

export async function tagFeed(ctx: RequestContext, input: { tag: string; location_id?: string; page?: number; page_size?: number }) {
  const tag = input.tag.replace(/^#/, '').normalize('NFC').toLowerCase();
  const origin = await resolveOrigin(ctx, { location_id: input.location_id });
  const params = pageParams(input, SEARCH_PAGE);
  const path = `/api/feed/tags/${encodeURIComponent(input.tag)}/`;
  if (!TAG_RE.test(tag)) return paginated(ctx, path, params, 0, [], { location_id: input.location_id });
  const db = currentDb();
  const viewerId = ctx.user?.id ?? null;
  const { rows } = await db.execute<{ id: string; total: number }>(tagFeedStatement(tag, viewerId, origin, params));
  let count = rows[0]?.total ?? 0;
  if (!rows.length && params.offset) count = (await db.execute<{ total: number }>(tagFeedStatement(tag, viewerId, origin, { limit: 1, offset: 0 }))).rows[0]?.total ?? 0;
  const posts = await loadPosts(rows.map((r) => r.id), viewerId, db, ctx.baseUrl);
  return paginated(ctx, path, params, count, posts.map((p) => serializePost(p, ctx)), { location_id: input.location_id });
}
