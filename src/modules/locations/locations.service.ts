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
    // `<->` alone: a tie-breaker column would stop the index from returning rows nearest-first, and
    // PostgreSQL would read and sort every location in the radius (measured in bench/: p99 13.5 → 6.8 ms).
    .orderBy(sql`${locations.center} <-> ${point}`)
    .limit(NEARBY_LIMIT);
  // Equal distances get a stable order here, on the 100 rows only.
  rows.sort((a, b) => Number(a.distance) - Number(b.distance) || a.id.localeCompare(b.id));
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
  // One KNN operator per query, so an index returns rows in order and the scan stops at the limit:
  // `center <->` on the GiST index of centres, or trigram distance `name <->` on the GiST trigram index.
  // Ties are ordered afterwards on the 50 rows only (a tie-breaker in SQL forces a full sort).
  const rank = coords ? sql<number>`${locations.center} <-> ${geoPoint(coords.longitude, coords.latitude)}` : sql<number>`${locations.name} <-> ${query}`;
  const rows = await platform.db
    .select({ id: locations.id, name: locations.name, confidenceScore: locations.confidenceScore, totalUsers: locations.totalUsers, city: locations.city, state: locations.state, rank })
    .from(locations)
    .where(where)
    .orderBy(coords ? sql`${rank} NULLS LAST` : rank)
    .limit(SEARCH_LIMIT);
  rows.sort((a, b) => (Number(a.rank ?? Infinity) - Number(b.rank ?? Infinity)) || b.totalUsers - a.totalUsers || a.id.localeCompare(b.id));
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

