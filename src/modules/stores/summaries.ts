import { sql } from 'drizzle-orm';
import { currentDb } from '../../platform/db.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import { mediaUrl } from '../users/users.serializer.js';

/**
 * Short shapes of products and stores for other modules (posts that share a product or a store, feed
 * suggestions). One query for any number of ids, never one per id; unknown ids are simply absent from the map.
 * `baseUrl` builds image URLs: a caller's own answer passes its `ctx.baseUrl`; pushed payloads leave it to the
 * server's base (serverBaseUrl), as every pushed payload does.
 */
export interface ProductSummary {
  id: string;
  name: string;
  /** Two-decimal string, or null for a product without a price (negotiable or variable). */
  price: string | null;
  images: Array<{ id: string; url: string }>;
  store: { id: string; name: string };
}

export interface StoreSummary {
  id: string;
  name: string;
  slug: string;
  description: string;
  logo: string | null;
  location_name: string | null;
  owner: { username: string; display_name: string };
}

const uniqueIds = (ids: string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];

export async function loadProductSummaries(ids: string[], baseUrl: string = serverBaseUrl()): Promise<Map<string, ProductSummary>> {
  const wanted = uniqueIds(ids);
  if (!wanted.length) return new Map();
  const { rows } = await currentDb().execute<{ id: string; name: string; price: string | null; store_id: string; store_name: string; images: Array<{ id: string; image: string }> }>(sql`
    SELECT p.id, p.name, p.price::text AS price, s.id AS store_id, s.name AS store_name,
      coalesce((SELECT json_agg(json_build_object('id', i.id, 'image', i.image) ORDER BY i.created_at, i.id)
                  FROM product_images i WHERE i.product_id = p.id), '[]'::json) AS images
    FROM products p JOIN stores s ON s.id = p.store_id
    WHERE p.id = ANY(${sql.param(wanted)}::uuid[])`);
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        name: r.name,
        price: r.price,
        images: r.images.map((i) => ({ id: i.id, url: mediaUrl(i.image, baseUrl)! })),
        store: { id: r.store_id, name: r.store_name },
      },
    ]),
  );
}

export async function loadStoreSummaries(ids: string[], baseUrl: string = serverBaseUrl()): Promise<Map<string, StoreSummary>> {
  const wanted = uniqueIds(ids);
  if (!wanted.length) return new Map();
  const { rows } = await currentDb().execute<{ id: string; name: string; slug: string; description: string; logo: string | null; location_name: string | null; username: string; display_name: string }>(sql`
    SELECT s.id, s.name, s.slug, s.description, s.logo, l.name AS location_name, u.username, u.display_name
    FROM stores s JOIN users u ON u.id = s.owner_id LEFT JOIN locations l ON l.id = s.location_id
    WHERE s.id = ANY(${sql.param(wanted)}::uuid[])`);
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        name: r.name,
        slug: r.slug,
        description: r.description,
        logo: mediaUrl(r.logo, baseUrl),
        location_name: r.location_name,
        owner: { username: r.username, display_name: r.display_name },
      },
    ]),
  );
}
