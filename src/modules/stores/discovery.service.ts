import { sql, type SQL } from 'drizzle-orm';
import type { RequestContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import type { HierarchyLevel, ProductCategory } from '../../models/index.js';
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
const level = (name: HierarchyLevel) => sql.raw(`l.${name}`);

/**
 * Products of stores in the places that share the target's most specific level, widening one level at a
 * time while nothing is found. A place "shares" a level when its value there is the same (any case) and none
 * of the target's broader levels contradicts it (a broader level the place lacks does not count against it):
 * "High Street" in another town is not this High Street. Each level is one statement (count and the page's
 * ids, on the per-level expression indexes of 0008), then one statement reads the page's products.
 */
export async function productsByLocation(ctx: RequestContext, input: DiscoveryInput): Promise<DiscoveryAnswer> {
  const target = await findLocation(input.location_id);
  if (!target) throw notFound();
  const params = pageParams(input, { size: 20, max: 100 });
  const productFilters = productConditions({ search: input.search, categories: input.categories });
  const levels = FALLBACK_LEVELS.filter((l) => target[l]?.trim());
  for (const [i, name] of levels.entries()) {
    const broader = levels.slice(i + 1);
    const conditions: SQL[] = [
      sql`lower(${level(name)}) = lower(${target[name]})`,
      ...broader.map((b) => sql`(${level(b)} IS NULL OR lower(${level(b)}) = lower(${target[b]}))`),
      ...productFilters,
    ];
    const { rows } = await currentDb().execute<{ count: number; ids: string[] }>(sql`
      WITH found AS MATERIALIZED (
        SELECT pr.id, pr.created_at
        FROM locations l
        JOIN stores s ON s.location_id = l.id
        JOIN products pr ON pr.store_id = s.id
        WHERE ${sql.join(conditions, sql` AND `)}
      )
      SELECT (SELECT count(*)::int FROM found) AS count,
        ARRAY(SELECT id FROM found ORDER BY created_at DESC, id DESC LIMIT ${params.limit} OFFSET ${params.offset}) AS ids`);
    const { count, ids } = rows[0];
    if (!count) continue;
    const products = (await findProductsByIds(ids)).map((p) => serializeProduct(p, ctx));
    const filters = { location_id: input.location_id, search: input.search, categories: input.categories?.join(',') };
    const { results, ...page } = paginated(ctx, PATH, params, count, products, filters);
    return { ...page, location_name: target[name]!, level: name, products: results };
  }
  return { location_name: null, products: [] };
}
