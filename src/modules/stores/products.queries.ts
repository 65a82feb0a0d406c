import { sql, type SQL } from 'drizzle-orm';
import { currentDb } from '../../platform/db.js';
import type { ProductCategory, PriceType } from '../../models/index.js';
import type { ProductWithRelations } from './products.serializer.js';
import { likePattern } from './stores.queries.js';

type ProductSqlRow = {
  id: string;
  store_id: string;
  name: string;
  description: string;
  category: ProductCategory;
  stock: number;
  price_type: PriceType;
  price: string | null;
  created_at: string | Date;
  updated_at: string | Date;
  store_name: string;
  store_slug: string;
  store_description: string;
  owner_id: string;
  owner_username: string;
  owner_display_name: string;
  location_id: string | null;
  location_name: string | null;
  images: Array<{ id: string; image: string }>;
};

/**
 * Products with store, owner, location and images, in one statement for the whole page (images aggregated
 * per product). `from` is the FROM clause that picks and orders the products: aliased `p`, carrying `ord`.
 */
const selectProducts = (from: SQL) => sql`
  SELECT p.id, p.store_id, p.name, p.description, p.category, p.stock, p.price_type, p.price::text AS price, p.created_at, p.updated_at,
    s.name AS store_name, s.slug AS store_slug, s.description AS store_description, s.owner_id,
    u.username AS owner_username, u.display_name AS owner_display_name, s.location_id, l.name AS location_name,
    coalesce((SELECT json_agg(json_build_object('id', i.id, 'image', i.image) ORDER BY i.created_at, i.id)
                FROM product_images i WHERE i.product_id = p.id), '[]'::json) AS images
  FROM ${from}
  JOIN stores s ON s.id = p.store_id
  JOIN users u ON u.id = s.owner_id
  LEFT JOIN locations l ON l.id = s.location_id
  ORDER BY p.ord`;

const toProduct = (r: ProductSqlRow): ProductWithRelations => ({
  id: r.id,
  storeId: r.store_id,
  name: r.name,
  description: r.description,
  category: r.category,
  stock: r.stock,
  priceType: r.price_type,
  price: r.price,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  store: {
    id: r.store_id,
    name: r.store_name,
    slug: r.store_slug,
    description: r.store_description,
    ownerId: r.owner_id,
    owner: { username: r.owner_username, displayName: r.owner_display_name },
    location: r.location_id ? { id: r.location_id, name: r.location_name ?? '' } : null,
  },
  images: r.images,
});

/** Full products for these ids, in the order given. */
export async function findProductsByIds(ids: string[]): Promise<ProductWithRelations[]> {
  if (!ids.length) return [];
  const { rows } = await currentDb().execute<ProductSqlRow>(
    selectProducts(sql`(SELECT pr.*, w.ord FROM unnest(${sql.param(ids)}::uuid[]) WITH ORDINALITY AS w(id, ord) JOIN products pr ON pr.id = w.id) p`),
  );
  return rows.map(toProduct);
}

export async function findProduct(id: string): Promise<ProductWithRelations | null> {
  const [row] = await findProductsByIds([id]);
  return row ?? null;
}

export interface ProductFilters {
  category?: ProductCategory;
  price?: string;
  store?: string;
  search?: string;
}

export function productConditions(f: ProductFilters & { categories?: ProductCategory[] }, alias = 'pr'): SQL[] {
  const a = sql.raw(alias);
  const where: SQL[] = [];
  if (f.category) where.push(sql`${a}.category = ${f.category}`);
  if (f.categories?.length) where.push(sql`${a}.category = ANY(${sql.param(f.categories)}::text[])`);
  if (f.price !== undefined) where.push(sql`${a}.price = ${f.price}::numeric`);
  if (f.store) where.push(sql`${a}.store_id = ${f.store}`);
  if (f.search) where.push(sql`(${a}.name ILIKE ${likePattern(f.search)} OR ${a}.description ILIKE ${likePattern(f.search)})`);
  return where;
}

const whereOf = (conditions: SQL[]) => (conditions.length ? sql`WHERE ${sql.join(conditions, sql` AND `)}` : sql``);

/** One page of products, newest first, and the count of all that match. */
export async function listProducts(f: ProductFilters, limit: number, offset: number): Promise<{ count: number; rows: ProductWithRelations[] }> {
  const where = whereOf(productConditions(f));
  const db = currentDb();
  const { rows: counted } = await db.execute<{ count: number }>(sql`SELECT count(*)::int AS count FROM products pr ${where}`);
  const count = counted[0].count;
  if (!count) return { count, rows: [] };
  const { rows } = await db.execute<ProductSqlRow>(
    selectProducts(sql`(SELECT pr.*, row_number() OVER (ORDER BY pr.created_at DESC, pr.id DESC) AS ord FROM products pr ${where}
      ORDER BY pr.created_at DESC, pr.id DESC LIMIT ${limit} OFFSET ${offset}) p`),
  );
  return { count, rows: rows.map(toProduct) };
}

export { selectProducts, toProduct, type ProductSqlRow, whereOf };
