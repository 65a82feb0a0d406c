import { and, asc, count, desc, eq, gte, sql, type SQL } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { locationNameSuggestions, locations } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { postCountSql, storeCountSql } from './activity-counts.js';
import { geoPoint } from './locations.queries.js';
import { serializeLocationListItem } from './locations.serializer.js';

/** Read side of locations: detail, the filtered list, nearby, search and staff analytics. */

const countsSelect = { postCount: postCountSql(locations.id), storeCount: storeCountSql(locations.id) };

export async function locationDetail(id: string) {
  const [row] = await platform.db.select({ location: locations, ...countsSelect }).from(locations).where(eq(locations.id, id)).limit(1);
  if (!row) throw notFound();
  return serializeLocationListItem(row.location, row);
}

export interface ListFilters {
  country?: string;
  state?: string;
  city?: string;
  neighbourhood?: string;
  search?: string;
  min_confidence?: number;
  needs_verification?: boolean;
  order_by_confidence?: boolean;
  order_by_posts?: boolean;
  order_by_stores?: boolean;
  page?: number;
  page_size?: number;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** GET /api/locations/locations/ (and the earlier /api/locations/): filters on indexed lower(level) columns. */
export async function listLocations(ctx: AuthedContext, path: string, input: ListFilters) {
  const params = pageParams(input, { size: 50, max: 100 });
  const conditions: SQL[] = [];
  for (const level of ['country', 'state', 'city', 'neighbourhood'] as const) {
    const value = input[level]?.trim();
    if (value) conditions.push(sql`lower(${locations[level]}) = lower(${value})`);
  }
  if (input.search?.trim()) conditions.push(sql`${locations.name} ILIKE ${`%${escapeLike(input.search.trim())}%`}`);
  if (input.min_confidence !== undefined) conditions.push(gte(locations.confidenceScore, input.min_confidence));
  if (input.needs_verification !== undefined) conditions.push(eq(locations.needsVerification, input.needs_verification));
  const where = conditions.length ? and(...conditions) : undefined;

  const order: SQL[] = [];
  if (input.order_by_confidence) order.push(desc(locations.confidenceScore));
  if (input.order_by_posts) order.push(sql`${countsSelect.postCount} DESC`);
  if (input.order_by_stores) order.push(sql`${countsSelect.storeCount} DESC`);
  order.push(desc(locations.totalUsers), asc(locations.id));

  const [{ total }] = await platform.db.select({ total: count() }).from(locations).where(where);
  const rows = await platform.db.select({ location: locations, ...countsSelect }).from(locations).where(where).orderBy(...order).limit(params.limit).offset(params.offset);
  const { page: _p, page_size: _s, ...filters } = input;
  return paginated(ctx, path, params, total, rows.map((r) => serializeLocationListItem(r.location, r)), filters);
}

const NEARBY_LIMIT = 100;

/**
 * Locations whose centre is within `maxDistanceKm`, nearest first: ST_DWithin on the GiST index of
 * `center` narrows, `<->` orders by the same index (KNN), so the cost follows the answer, not the table.
 */
export async function nearbyLocations(latitude: number, longitude: number, maxDistanceKm: number) {
  const point = geoPoint(longitude, latitude);
  const rows = await platform.db
    .select({
      id: locations.id,
      name: locations.name,
      confidenceScore: locations.confidenceScore,
      estimatedRadius: locations.estimatedRadius,
      totalUsers: locations.totalUsers,
      distance: sql<number>`ST_Distance(${locations.center}, ${point})`,
    })
    .from(locations)
    .where(sql`ST_DWithin(${locations.center}, ${point}, ${maxDistanceKm * 1000})`)
    .orderBy(sql`${locations.center} <-> ${point}`, asc(locations.id))
    .limit(NEARBY_LIMIT);
  return {
    count: rows.length,
    locations: rows.map((r) => ({
      id: r.id,
      name: r.name,
      confidence_score: r.confidenceScore,
      estimated_radius: r.estimatedRadius,
      distance_km: Math.round(Number(r.distance)) / 1000,
      total_users: r.totalUsers,
    })),
  };
}

const SEARCH_LIMIT = 50;

/**
 * Fuzzy name search through pg_trgm: trigram similarity (`%`) or a substring match, both answered by
 * the GIN trigram index on name. Best match first, or nearest first when coordinates are given.
 */
export async function searchLocations(q: string | undefined, coords: { latitude: number; longitude: number } | null) {
  const query = q?.trim();
  if (!query) throw new AppError(400, { error: 'Query parameter is required' });
  const where = sql`(${locations.name} % ${query} OR ${locations.name} ILIKE ${`%${escapeLike(query)}%`})`;
  const order = coords
    ? [sql`${locations.center} <-> ${geoPoint(coords.longitude, coords.latitude)} NULLS LAST`, sql`similarity(${locations.name}, ${query}) DESC`, asc(locations.id)]
    : [sql`similarity(${locations.name}, ${query}) DESC`, desc(locations.totalUsers), asc(locations.id)];
  const rows = await platform.db
    .select({ id: locations.id, name: locations.name, confidenceScore: locations.confidenceScore, totalUsers: locations.totalUsers, city: locations.city, state: locations.state })
    .from(locations)
    .where(where)
    .orderBy(...order)
    .limit(SEARCH_LIMIT);
  return {
    query,
    count: rows.length,
    locations: rows.map((r) => ({ id: r.id, name: r.name, confidence_score: r.confidenceScore, total_users: r.totalUsers, city: r.city, state: r.state })),
  };
}

/** Below this a location's name is not trusted yet (analytics' low_confidence_count). */
export const LOW_CONFIDENCE = 0.5;
const RECENT_SUGGESTION_DAYS = 7;

export async function locationAnalytics() {
  const [summary] = await platform.db
    .select({
      total_locations: count(),
      low_confidence_count: sql<number>`count(*) FILTER (WHERE ${locations.confidenceScore} < ${LOW_CONFIDENCE})::int`,
      needs_verification_count: sql<number>`count(*) FILTER (WHERE ${locations.needsVerification})::int`,
      auto_generated_count: sql<number>`count(*) FILTER (WHERE ${locations.isAutoGenerated})::int`,
    })
    .from(locations);
  const [{ recent }] = await platform.db
    .select({ recent: count() })
    .from(locationNameSuggestions)
    .where(sql`${locationNameSuggestions.createdAt} > now() - make_interval(days => ${RECENT_SUGGESTION_DAYS})`);
  const top = await platform.db
    .select({ id: locations.id, name: locations.name, totalUsers: locations.totalUsers, confidenceScore: locations.confidenceScore })
    .from(locations)
    .orderBy(desc(locations.totalUsers), asc(locations.id))
    .limit(10);
  return {
    summary: { ...summary, recent_suggestions_count: recent },
    top_locations: top.map((t) => ({ id: t.id, name: t.name, total_users: t.totalUsers, confidence_score: t.confidenceScore })),
  };
}

