import type pg from 'pg';
import { PRODUCT_CATEGORIES } from '../../src/models/index.js';
import { LOCATION_COUNT, ensureLocationsDataset } from './locations-data.js';

/**
 * Synthetic marketplace on the locations bench data: 10,000 stores, each owned by a bench user and placed in a
 * bench location drawn uniformly (at the location's published centre), and 100,000 products drawn uniformly over
 * the stores, with random categories, prices, stock and ages. Generated in SQL, once, and kept (bench_dataset);
 * rebuilt with the locations data (its TRUNCATE takes the stores with it) or with --regenerate.
 */
export const STORE_COUNT = 10_000;
export const PRODUCT_COUNT = 100_000;
const DATASET = 'marketplace-v1';

const categories = `ARRAY[${PRODUCT_CATEGORIES.map((c) => `'${c}'`).join(',')}]`;

const STORES_SQL = `
WITH draws AS MATERIALIZED (
  SELECT g, random() AS pick, random() AS age FROM generate_series(1, ${STORE_COUNT}) g
)
INSERT INTO stores (owner_id, name, slug, description, location_id, latitude, longitude, point, created_at, updated_at)
SELECT u.id, 'Bench store ' || d.g, 'bench-store-' || d.g, 'Local goods, store number ' || d.g,
  o.id, o.lat, o.lon, ST_SetSRID(ST_MakePoint(o.lon, o.lat), 4326)::geography, now() - d.age * interval '700 days', now()
FROM draws d
JOIN bench_location_ordinals o ON o.n = 1 + floor(${LOCATION_COUNT} * d.pick)::int
JOIN users u ON lower(u.username) = lower('bench_' || d.g)`; // users_username_key: the trigram index would answer = too, slowly

const PRODUCTS_SQL = `
WITH ordinals AS MATERIALIZED (
  SELECT row_number() OVER (ORDER BY id)::int AS n, id FROM stores
), draws AS MATERIALIZED (
  SELECT g, random() AS pick, random() AS cat, random() AS price, random() AS stock, random() AS age FROM generate_series(1, ${PRODUCT_COUNT}) g
)
INSERT INTO products (store_id, name, description, category, stock, price_type, price, created_at, updated_at)
SELECT s.id, 'Bench product ' || d.g, 'A fine thing, number ' || d.g, (${categories})[1 + floor(d.cat * ${PRODUCT_CATEGORIES.length})::int],
  floor(d.stock * 50)::int, 'fixed', round((1 + d.price * 200)::numeric, 2), now() - d.age * interval '700 days', now()
FROM draws d JOIN ordinals s ON s.n = 1 + floor(${STORE_COUNT} * d.pick)::int`;

export async function ensureMarketplaceDataset(pool: pg.Pool, regenerate: boolean): Promise<void> {
  const locationsRebuilt = await ensureLocationsDataset(pool, regenerate);
  const { rowCount } = await pool.query('SELECT 1 FROM bench_dataset WHERE name = $1', [DATASET]);
  if (rowCount && !regenerate && !locationsRebuilt) return;

  const started = Date.now();
  const step = (what: string) => console.log(`[marketplace data] ${what} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  const client = await pool.connect();
  try {
    await client.query('DELETE FROM bench_dataset WHERE name = $1', [DATASET]);
    await client.query('TRUNCATE stores CASCADE');
    await client.query('SET statement_timeout = 0');
    await client.query('SELECT setseed(0.0808)');
    step('generating stores');
    await client.query(STORES_SQL);
    step('generating products');
    await client.query(PRODUCTS_SQL);
    step('vacuum analyze');
    await client.query('VACUUM (ANALYZE) stores');
    await client.query('VACUUM (ANALYZE) products');
    await client.query('INSERT INTO bench_dataset (name, seconds) VALUES ($1, $2)', [DATASET, (Date.now() - started) / 1000]);
    step('done');
  } finally {
    await client.query('RESET statement_timeout').catch(() => undefined);
    client.release();
  }
}
