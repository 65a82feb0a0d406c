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
/** A level of stores.place_levels (1-based, in HIERARCHY_LEVELS order, as the 0008 triggers write it). */
const placeLevel = (name: HierarchyLevel) => sql.raw(`s.place_levels[${HIERARCHY_LEVELS.indexOf(name) + 1}]`);

/**
 * Products of stores in the places that share the target's most specific level, widening one level at a
 * time while nothing is found. A place "shares" a level when its value there is the same (any case) and none
 * of the target's broader levels contradicts it (a broader level the place lacks does not count against it):
 * "High Street" in another town is not this High Street. Each level is one statement (count and the page's
 * ids): stores carry their location's levels (`place_levels`, kept by triggers, GIN-indexed), so a city's thousands
 * of locations are never read; then one statement reads the page's products.
 */
export async function productsByLocation(ctx: RequestContext, input: DiscoveryInput): Promise<DiscoveryAnswer> {
  const target = await findLocation(input.location_id);
  if (!target) throw notFound();
  const params = pageParams(input, { size: 20, max: 100 });
  const productFilters = productConditions({ search: input.search, categories: input.categories });
  const levels = FALLBACK_LEVELS.filter((l) => target[l]?.trim());
  for (const [i, name] of levels.entries()) {
    const broader = levels.slice(i + 1);
    // Lower-cased by PostgreSQL, as the triggers lower-case place_levels (JavaScript's rules differ for some letters).
    const value = sql`lower(${target[name]})`;
    const storesHere: SQL[] = [
      // The containment finds the stores through stores_place_levels_gin; the position check makes it this level.
      sql`s.place_levels @> ARRAY[${value}]::text[]`,
      sql`${placeLevel(name)} = ${value}`,
      ...broader.map((b) => sql`${placeLevel(b)} IN ('', lower(${target[b]}))`),
    ];
    const statement = productFilters.length
      ? filteredPage(storesHere, productFilters, params.limit, params.offset)
      : unfilteredPage(storesHere, params.limit, params.offset);
    const { rows } = await currentDb().execute<{ count: number; ids: string[] }>(statement);
    const { count, ids } = rows[0];
    if (!count) continue;
    const products = (await findProductsByIds(ids)).map((p) => serializeProduct(p, ctx));
    const filters = { location_id: input.location_id, search: input.search, categories: input.categories?.join(',') };
    const { results, ...page } = paginated(ctx, PATH, params, count, products, filters);
    return { ...page, location_name: target[name]!, level: name, products: results };
  }
  return { location_name: null, products: [] };
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
