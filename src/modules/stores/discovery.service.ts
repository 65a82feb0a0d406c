import { sql, type SQL } from 'drizzle-orm';
import type { RequestContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { HIERARCHY_LEVELS, type HierarchyLevel, type ProductCategory } from '../../models/index.js';
import { currentDb } from '../../platform/db.js';
import { findLocation } from '../locations/locations.queries.js';
import { findProductsByIds, productConditions } from './products.queries.js';
import { serializeProduct, type ProductBody } from './products.serializer.js';

/** The contract's fallback order for product discovery, narrow to broad. */
export const FALLBACK_LEVELS: readonly HierarchyLevel[] = [
  'amenity', 'building', 'commercial', 'road', 'neighbourhood', 'quarter', 'borough', 'suburb', 'municipality',
  'hamlet', 'village', 'town', 'city', 'district', 'county', 'state', 'country',
];

export interface DiscoveryInput {
  location_id: string;
  search?: string;
  categories?: ProductCategory[];
  page?: number;
  page_size?: number;
}

export type DiscoveryAnswer =
  | { count: number; next: string | null; previous: string | null; location_name: string; level: HierarchyLevel; products: ProductBody[] }
  | { location_name: null; products: [] };

const PATH = '/api/stores/products/by-location/';

/** Level statements run since the process started (each reads one level's stores and products): tests and the bench look at it. */
export const discoveryCounts = { levelsRead: 0 };
/** A level of stores.place_levels (1-based, in HIERARCHY_LEVELS order, as the 0008 triggers write it). */
const placeLevel = (name: HierarchyLevel) => sql.raw(`s.place_levels[${HIERARCHY_LEVELS.indexOf(name) + 1}]`);

/**
 * Products of stores in the places that share the target's most specific level, widening one level at a
 * time while nothing is found. A place "shares" a level when its value there is the same (any case) and none
 * of the target's broader levels contradicts it (a broader level the place lacks does not count against it):
 * "High Street" in another town is not this High Street. Each level is one statement (count and the page's
 * ids): stores carry their location's levels (`place_levels`, kept by triggers, GIN-indexed), so a city's thousands
 * of locations are never read; then one statement reads the page's products.
 *
 * With a search that finds nothing at the narrowest level, the matches are located before any broader level is read
 * (locateMatches): a search that matches nothing costs that one statement more instead of one per level up to the
 * whole country, one that matches only far away reads that level alone, and the walk never goes past a level known
 * to match.
 */
export async function productsByLocation(ctx: RequestContext, input: DiscoveryInput): Promise<DiscoveryAnswer> {
  const target = await findLocation(input.location_id);
  if (!target) throw notFound();
  const params = pageParams(input, { size: 20, max: 100 });
  const productFilters = productConditions({ search: input.search, categories: input.categories });
  const levels = FALLBACK_LEVELS.filter((l) => target[l]?.trim());
  const storesAt = levels.map((name, i) => storesAtLevel(target, name, levels.slice(i + 1)));
  const filters = { location_id: input.location_id, search: input.search, categories: input.categories?.join(',') };
  const nothing: DiscoveryAnswer = { location_name: null, products: [] };

  /** The answer at level i, or null when nothing is found there. */
  const answerAt = async (i: number): Promise<DiscoveryAnswer | null> => {
    const statement = productFilters.length
      ? filteredPage(storesAt[i], productFilters, params.limit, params.offset)
      : unfilteredPage(storesAt[i], params.limit, params.offset);
    discoveryCounts.levelsRead++;
    const { rows } = await currentDb().execute<{ count: number; ids: string[] }>(statement);
    const { count, ids } = rows[0];
    if (!count) return null;
    const products = (await findProductsByIds(ids)).map((p) => serializeProduct(p, ctx));
    const { results, ...page } = paginated(ctx, PATH, params, count, products, filters);
    return { ...page, location_name: target[levels[i]]!, level: levels[i], products: results };
  };

  if (!levels.length) return nothing;
  // The narrowest level first, as without a search: a search that matches anything mostly matches near the target.
  const nearest = await answerAt(0);
  if (nearest) return nearest;
  let first = 1;
  let last = levels.length - 1;
  if (input.search && levels.length > 1) {
    // Past it, the search is located before any broader level is read.
    const located = await locateMatches(storesAt.slice(1), levels.slice(1).map((l) => target[l]!), productFilters);
    if (located.narrowest === null) return nothing;
    // Every match seen: its level is known. Too many to see: no level past the narrowest seen is needed.
    last = 1 + located.narrowest;
    if (located.complete) first = last;
  }
  for (let i = first; i <= last; i++) {
    const answer = await answerAt(i);
    if (answer) return answer;
  }
  return nothing;
}

/** The conditions on a store `s` for sharing the target's level `name` (`broader`: the target's levels above it). */
function storesAtLevel(target: Partial<Record<HierarchyLevel, string | null>>, name: HierarchyLevel, broader: HierarchyLevel[]): SQL[] {
  // Lower-cased by PostgreSQL, as the triggers lower-case place_levels (JavaScript's rules differ for some letters).
  const value = sql`lower(${target[name]})`;
  return [
    // The containment finds the stores through stores_place_levels_gin; the position check makes it this level.
    sql`s.place_levels @> ARRAY[${value}]::text[]`,
    sql`${placeLevel(name)} = ${value}`,
    ...broader.map((b) => sql`${placeLevel(b)} IN ('', lower(${target[b]}))`),
  ];
}

/**
 * At most this many matches are looked at to place a search: every match of a specific search is seen, and a broad
 * one costs no more than this before the walk over levels goes on (and stops at a level known to match).
 */
export const SEARCH_MATCHES_SEEN = 100;

interface Located {
  /** The narrowest level (an index into the levels given) among the matches seen; null: no match. */
  narrowest: number | null;
  /** Every match was seen: `narrowest` is the narrowest level of all matches. */
  complete: boolean;
}

/**
 * Where a search matches among the levels given, in one statement: up to SEARCH_MATCHES_SEEN + 1 matching products
 * of stores at any of them, each with the narrowest level it is at. Stores are found through stores_place_levels_gin
 * (they hold one of the levels' values); a search of 3 characters or more may be looked up in the products' trigram
 * indexes instead, when the planner expects few matches. So a search that matches nothing checks the products of the
 * target's reach once, not once per level.
 */
async function locateMatches(storesAt: SQL[][], values: string[], productFilters: SQL[]): Promise<Located> {
  const level = sql.join(
    storesAt.map((conditions, i) => sql`WHEN ${sql.join(conditions, sql` AND `)} THEN ${sql.raw(String(i))}`),
    sql` `,
  );
  const { rows } = await currentDb().execute<{ seen: number; narrowest: number | null }>(sql`
    SELECT count(*)::int AS seen, min(m.level)::int AS narrowest FROM (
      SELECT l.level FROM products pr
      JOIN stores s ON s.id = pr.store_id
      CROSS JOIN LATERAL (SELECT CASE ${level} END AS level) l
      WHERE ${sql.join(productFilters, sql` AND `)}
        AND s.place_levels && (SELECT array_agg(lower(v)) FROM unnest(${sql.param(values)}::text[]) v)
        AND l.level IS NOT NULL
      LIMIT ${SEARCH_MATCHES_SEEN + 1}
    ) m`);
  return { narrowest: rows[0].narrowest, complete: rows[0].seen <= SEARCH_MATCHES_SEEN };
}

/**
 * No product filter: the count is the sum of the stores' `products_count`, and the page comes from the stores that
 * can hold it. The first `offset + limit` products all come from stores whose newest product is at least as new as
 * the last of them, so the `offset + limit` stores with the newest `last_product_at` (with ties) hold them all; each
 * gives at most that many of its newest products through products_store_created_idx. A city's 500 stores cost a
 * read of their rows and about twenty short index scans, not a read of their 5,000 products.
 */
function unfilteredPage(storesHere: SQL[], limit: number, offset: number): SQL {
  const reach = offset + limit;
  return sql`
    WITH here AS MATERIALIZED (
      SELECT s.id, s.products_count, s.last_product_at FROM stores s
      WHERE ${sql.join(storesHere, sql` AND `)}
    ),
    candidates AS (
      SELECT id FROM here WHERE products_count > 0
      ORDER BY last_product_at DESC FETCH FIRST ${reach} ROWS WITH TIES
    )
    SELECT (SELECT coalesce(sum(products_count), 0)::int FROM here) AS count,
      ARRAY(
        SELECT p.id FROM candidates c
        CROSS JOIN LATERAL (
          SELECT pr.id, pr.created_at FROM products pr WHERE pr.store_id = c.id
          ORDER BY pr.created_at DESC, pr.id DESC LIMIT ${reach}
        ) p
        ORDER BY p.created_at DESC, p.id DESC LIMIT ${limit} OFFSET ${offset}
      ) AS ids`;
}

/** With a category or search filter the stores' summaries do not apply: the matching products are counted. */
function filteredPage(storesHere: SQL[], productFilters: SQL[], limit: number, offset: number): SQL {
  return sql`
    WITH found AS MATERIALIZED (
      SELECT pr.id, pr.created_at
      FROM stores s
      JOIN products pr ON pr.store_id = s.id
      WHERE ${sql.join([...storesHere, ...productFilters], sql` AND `)}
    )
    SELECT (SELECT count(*)::int FROM found) AS count,
      ARRAY(SELECT id FROM found ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}) AS ids`;
}
