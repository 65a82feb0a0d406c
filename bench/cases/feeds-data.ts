import type pg from 'pg';

/**
 * Synthetic data for the feeds case: FEED_LOCATION_COUNT locations around 10 cities, one resident author per
 * location, and `posts` posts (1,000,000 by default; `--feed-posts=N` for a smaller machine). Generated in SQL
 * (generate_series) like the locations data, once per size, kept (bench_dataset marks it).
 *
 * Posts go to a location with probability falling with its ordinal (1 + N·u²), so a few places are busy (the
 * busiest holds about 1 % of all posts) and most are quiet; creation times spread over 90 days; likes, comments
 * and views are geometric (most posts have none, a few have many). rank_score is set by migration 0012's trigger,
 * exactly as for posts created through the API.
 */
export const FEED_LOCATION_COUNT = 10_000;
export const DEFAULT_FEED_POSTS = 1_000_000;
const DATASET = 'feeds-v2';
const CHUNK = 100_000;

const CITIES = [
  ['Feedbench North', 59.3293, 18.0686],
  ['Feedbench South', -34.6037, -58.3816],
  ['Feedbench East', 1.3521, 103.8198],
  ['Feedbench West', 45.5017, -73.5673],
  ['Feedbench Lake', 47.3769, 8.5417],
  ['Feedbench Bay', 37.7749, -122.4194],
  ['Feedbench Hill', 50.0755, 14.4378],
  ['Feedbench Port', 53.5511, 9.9937],
  ['Feedbench Plain', 41.8781, -87.6298],
  ['Feedbench Coast', -33.9249, 18.4241],
] as const;

export async function ensureFeedsDataset(pool: pg.Pool, posts: number, regenerate: boolean): Promise<boolean> {
  const name = `${DATASET}:${posts}`;
  await pool.query('CREATE TABLE IF NOT EXISTS bench_dataset (name text PRIMARY KEY, generated_at timestamptz NOT NULL DEFAULT now(), seconds float8)');
  const { rowCount } = await pool.query('SELECT 1 FROM bench_dataset WHERE name = $1', [name]);
  if (rowCount && !regenerate) return false;

  const started = Date.now();
  const step = (what: string) => console.log(`[feeds data] ${what} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  const client = await pool.connect();
  try {
    await client.query('SET statement_timeout = 0');
    await client.query('SELECT setseed(0.11)');
    await client.query(`DELETE FROM bench_dataset WHERE name LIKE '${DATASET}:%'`);
    await client.query(`DELETE FROM posts WHERE user_id IN (SELECT id FROM users WHERE username LIKE 'feedbench\\_%')`);
    await client.query(`DELETE FROM users WHERE username LIKE 'feedbench\\_%'`);
    await client.query(`DELETE FROM locations WHERE city LIKE 'Feedbench %'`);
    step('cleared');
    const cities = CITIES.map(([c, lat, lon], i) => `(${i}, '${c}', ${lat}, ${lon})`).join(', ');
    // Neighbourhoods spread normally around their city's centre (12 km), radius 200..2000 m: about 1 place per
    // km² at the centre, as joined-or-created places of a real city would be.
    await client.query(`
      WITH cities(idx, city, lat, lon) AS (VALUES ${cities}),
      draws AS MATERIALIZED (SELECT g, random() AS u1, random() AS u2, random() AS u3 FROM generate_series(1, ${FEED_LOCATION_COUNT}) g),
      placed AS (
        SELECT d.g, c.city,
          c.lat + sqrt(-2 * ln(1 - d.u1)) * sin(2 * pi() * d.u2) * 12 / 111.32 AS lat,
          c.lon + sqrt(-2 * ln(1 - d.u1)) * cos(2 * pi() * d.u2) * 12 / (111.32 * cos(radians(c.lat))) AS lon, d.u3
        FROM draws d JOIN cities c ON c.idx = d.g % 10)
      INSERT INTO locations (name, country, state, city, neighbourhood, latitude, longitude, point, center, center_latitude, center_longitude, estimated_radius, total_users, created_at)
      SELECT 'Feedbench place ' || g, 'Benchland', 'Bench', city, 'Feedbench place ' || g, lat, lon,
        ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography, lat, lon,
        200 + floor(u3 * u3 * 1800)::int, 1, now() - interval '100 days'
      FROM placed`);
    await client.query(`CREATE TEMP TABLE feedbench_places AS
      SELECT row_number() OVER (ORDER BY name) AS n, id FROM locations WHERE city LIKE 'Feedbench %'`);
    await client.query('CREATE UNIQUE INDEX ON feedbench_places (n)');
    step(`${FEED_LOCATION_COUNT} locations`);
    await client.query(`
      INSERT INTO users (email, username, display_name, password_hash, referral_code, location_id, created_at)
      SELECT 'feedbench' || n || '@bench.invalid', 'feedbench_' || n, 'Feed Bench ' || n, 'not-a-hash', 'FEEDBENCH' || n, id, now() - interval '100 days'
      FROM feedbench_places`);
    await client.query(`CREATE TEMP TABLE feedbench_authors AS
      SELECT p.n, u.id AS user_id, p.id AS location_id FROM feedbench_places p JOIN users u ON u.username = 'feedbench_' || p.n`);
    await client.query('CREATE UNIQUE INDEX ON feedbench_authors (n)');
    step(`${FEED_LOCATION_COUNT} authors`);
    for (let from = 1; from <= posts; from += CHUNK) {
      const to = Math.min(posts, from + CHUNK - 1);
      await client.query(`
        WITH draws AS MATERIALIZED (
          SELECT g, random() AS pick, random() AS age, random() AS l, random() AS c, random() AS v FROM generate_series(${from}, ${to}) g)
        INSERT INTO posts (user_id, post_type, content, location_id, likes_count, comments_count, views_count, created_at, updated_at)
        SELECT a.user_id, 'text', 'Feed bench post ' || d.g || ' about the street market', a.location_id,
          floor(-ln(1 - d.l) * 2)::int, floor(-ln(1 - d.c) * 0.7)::int, floor(-ln(1 - d.v) * 40)::int,
          now() - d.age * interval '90 days', now() - d.age * interval '90 days'
        FROM draws d JOIN feedbench_authors a ON a.n = 1 + floor(${FEED_LOCATION_COUNT} * d.pick * d.pick)::int`);
      step(`${to} posts`);
    }
    await client.query('ANALYZE locations');
    await client.query('ANALYZE users');
    // VACUUM sets the visibility map, so ranking reads the index alone (index-only scans), as on a settled table.
    await client.query('VACUUM ANALYZE posts');
    step('analyzed');
    await client.query('INSERT INTO bench_dataset (name, seconds) VALUES ($1, $2)', [name, (Date.now() - started) / 1000]);
  } finally {
    await client.query('DROP TABLE IF EXISTS feedbench_places, feedbench_authors').catch(() => undefined);
    client.release();
  }
  return true;
}
