import type pg from 'pg';
import { hashPassword } from '../../src/modules/accounts/passwords.js';

/**
 * Synthetic data for the locations case: 100,000 locations around 20 metropolitan areas and 1,000,000
 * users placed inside them. Generated in SQL (generate_series) because a million rows through the API
 * would take hours; generated once and kept (marker table bench_dataset) because it still takes minutes.
 */
export const LOCATION_COUNT = 100_000;
export const USER_COUNT = 1_000_000;
/** Bump when the generator changes: a dataset of another version is rebuilt. */
const DATASET = 'locations-v1';
export const BENCH_PASSWORD = 'bench-password-1';

/** Metropolitan centres and the spread (standard deviation, km) of their neighbourhoods. */
export const CITIES = [
  { city: 'New York', state: 'New York', country: 'United States', lat: 40.7128, lon: -74.006, sigmaKm: 18 },
  { city: 'London', state: 'England', country: 'United Kingdom', lat: 51.5074, lon: -0.1278, sigmaKm: 15 },
  { city: 'Paris', state: 'Ile-de-France', country: 'France', lat: 48.8566, lon: 2.3522, sigmaKm: 12 },
  { city: 'Berlin', state: 'Berlin', country: 'Germany', lat: 52.52, lon: 13.405, sigmaKm: 12 },
  { city: 'Madrid', state: 'Madrid', country: 'Spain', lat: 40.4168, lon: -3.7038, sigmaKm: 10 },
  { city: 'Rome', state: 'Lazio', country: 'Italy', lat: 41.9028, lon: 12.4964, sigmaKm: 10 },
  { city: 'Lagos', state: 'Lagos', country: 'Nigeria', lat: 6.5244, lon: 3.3792, sigmaKm: 14 },
  { city: 'Nairobi', state: 'Nairobi', country: 'Kenya', lat: -1.2921, lon: 36.8219, sigmaKm: 10 },
  { city: 'Cairo', state: 'Cairo', country: 'Egypt', lat: 30.0444, lon: 31.2357, sigmaKm: 14 },
  { city: 'Mumbai', state: 'Maharashtra', country: 'India', lat: 19.076, lon: 72.8777, sigmaKm: 12 },
  { city: 'Delhi', state: 'Delhi', country: 'India', lat: 28.6139, lon: 77.209, sigmaKm: 16 },
  { city: 'Tokyo', state: 'Tokyo', country: 'Japan', lat: 35.6762, lon: 139.6503, sigmaKm: 20 },
  { city: 'Seoul', state: 'Seoul', country: 'South Korea', lat: 37.5665, lon: 126.978, sigmaKm: 12 },
  { city: 'Sydney', state: 'New South Wales', country: 'Australia', lat: -33.8688, lon: 151.2093, sigmaKm: 18 },
  { city: 'Sao Paulo', state: 'Sao Paulo', country: 'Brazil', lat: -23.5505, lon: -46.6333, sigmaKm: 16 },
  { city: 'Mexico City', state: 'Mexico City', country: 'Mexico', lat: 19.4326, lon: -99.1332, sigmaKm: 15 },
  { city: 'Toronto', state: 'Ontario', country: 'Canada', lat: 43.6532, lon: -79.3832, sigmaKm: 14 },
  { city: 'Chicago', state: 'Illinois', country: 'United States', lat: 41.8781, lon: -87.6298, sigmaKm: 14 },
  { city: 'Jakarta', state: 'Jakarta', country: 'Indonesia', lat: -6.2088, lon: 106.8456, sigmaKm: 14 },
  { city: 'Istanbul', state: 'Istanbul', country: 'Turkey', lat: 41.0082, lon: 28.9784, sigmaKm: 15 },
] as const;

/** Names are "<first> <second>": a small vocabulary, so fuzzy search has many partial matches, as in a real city. */
export const FIRST_WORDS = [
  'Maple', 'Cedar', 'Willow', 'Oak', 'Pine', 'Elm', 'Birch', 'Harbor', 'River', 'Stone', 'Mill', 'Market', 'Castle', 'Church',
  'Abbey', 'Spring', 'Green', 'Golden', 'Silver', 'Old', 'New', 'North', 'South', 'East', 'West', 'Kings', 'Queens', 'Bridge',
  'Station', 'Meadow', 'Lake', 'Forest', 'Sunny', 'Rose', 'Lily', 'Fox', 'Bell', 'Crown', 'Bay', 'Port',
];
export const SECOND_WORDS = ['Heights', 'Park', 'Hill', 'Village', 'Gardens', 'Square', 'Grove', 'Ridge', 'Valley', 'Quarter', 'Side', 'End', 'Town', 'Fields', 'Point', 'Wharf'];

const sqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;
const sqlArray = (words: readonly string[]) => `(ARRAY[${words.map(sqlText).join(',')}])`;
const citiesValues = CITIES.map((c, i) => `(${i}, ${sqlText(c.city)}, ${sqlText(c.state)}, ${sqlText(c.country)}, ${c.lat}, ${c.lon}, ${c.sigmaKm})`).join(',\n  ');

// Box-Muller turns two uniform numbers into a normal one (PostgreSQL 15 has no random_normal()).
// 1 - random() is in (0, 1], so ln() never sees 0. One location in ten is spread four times as wide:
// the suburbs and villages around each centre.
const LOCATIONS_SQL = `
WITH cities(idx, city, state, country, lat, lon, sigma_km) AS (VALUES
  ${citiesValues}
), draws AS MATERIALIZED (
  SELECT g, random() AS u1, random() AS u2, random() AS u3, random() AS u4, random() AS u5, random() AS u6, random() AS u7
  FROM generate_series(1, ${LOCATION_COUNT}) g
), placed AS (
  SELECT d.*, c.city, c.state, c.country,
    c.lat + sqrt(-2 * ln(1 - d.u1)) * sin(2 * pi() * d.u2) * c.sigma_km * (CASE WHEN d.u5 < 0.1 THEN 4 ELSE 1 END) / 111.32 AS lat,
    c.lon + sqrt(-2 * ln(1 - d.u1)) * cos(2 * pi() * d.u2) * c.sigma_km * (CASE WHEN d.u5 < 0.1 THEN 4 ELSE 1 END) / (111.32 * cos(radians(c.lat))) AS lon,
    ${sqlArray(FIRST_WORDS)}[1 + floor(d.u3 * ${FIRST_WORDS.length})::int] || ' ' || ${sqlArray(SECOND_WORDS)}[1 + floor(d.u4 * ${SECOND_WORDS.length})::int] AS name
  FROM draws d JOIN cities c ON c.idx = d.g % ${CITIES.length}
)
INSERT INTO locations (name, country, state, city, neighbourhood, latitude, longitude, point, center, center_latitude, center_longitude,
  estimated_radius, confidence_score, is_auto_generated, created_at, updated_at)
SELECT name, country, state, city, name, lat, lon,
  ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography, lat, lon,
  200 + floor(u6 * u6 * 1800)::int, round(u7::numeric, 3)::float8, u5 < 0.2, now() - u7 * interval '700 days', now()
FROM placed`;

// Every location gets one user (locations are created by a user), the other 900,000 go to a location
// with probability falling with its ordinal (1 + N*u^2), so a few locations are crowded and most are small.
// Users sit uniformly inside their location's radius.
const usersSql = (from: number, to: number) => `
WITH draws AS MATERIALIZED (
  SELECT g, random() AS pick, random() AS r, random() AS angle, random() AS verified, random() AS age
  FROM generate_series(${from}, ${to}) g
), placed AS (
  SELECT dr.*, o.id AS location_id,
    o.lat + o.radius * sqrt(dr.r) * sin(2 * pi() * dr.angle) / 111320 AS lat,
    o.lon + o.radius * sqrt(dr.r) * cos(2 * pi() * dr.angle) / (111320 * cos(radians(o.lat))) AS lon
  FROM draws dr JOIN bench_location_ordinals o
    ON o.n = CASE WHEN dr.g <= ${LOCATION_COUNT} THEN dr.g ELSE 1 + floor(${LOCATION_COUNT} * dr.pick * dr.pick)::int END
)
INSERT INTO users (email, username, display_name, password_hash, referral_code, latitude, longitude, point, location_id, is_verified, created_at, updated_at)
SELECT 'bench' || g || '@bench.invalid', 'bench_' || g, 'Bench User ' || g, $1, 'BENCH' || g,
  round(lat::numeric, 8), round(lon::numeric, 8), ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography, location_id,
  verified < 0.1, now() - age * interval '1095 days', now()
FROM placed`;

/** Build the dataset unless it is there already (or `regenerate`). Returns whether it generated. */
export async function ensureLocationsDataset(pool: pg.Pool, regenerate: boolean): Promise<boolean> {
  await pool.query('CREATE TABLE IF NOT EXISTS bench_dataset (name text PRIMARY KEY, generated_at timestamptz NOT NULL DEFAULT now(), seconds float8)');
  const { rowCount } = await pool.query('SELECT 1 FROM bench_dataset WHERE name = $1', [DATASET]);
  if (rowCount && !regenerate) return false;

  const started = Date.now();
  const step = (what: string) => console.log(`[locations data] ${what} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  // One client for the whole build: setseed() makes random() repeatable only within its session.
  const client = await pool.connect();
  try {
    await client.query('DELETE FROM bench_dataset');
    // CASCADE: whatever references users or locations (tokens, suggestions, posts...) goes too.
    await client.query('TRUNCATE locations, users CASCADE');
    await client.query('DROP TABLE IF EXISTS bench_location_ordinals');
    await client.query('SET synchronous_commit = off');
    // The bulk statements run for minutes: no statement_timeout for this session (reset below).
    await client.query('SET statement_timeout = 0');
    // Bulk load without triggers (row triggers such as "members changed" bookkeeping and the foreign-key
    // checks): the generator writes consistent rows itself, and a million trigger calls would take longer
    // than the load. Reset before the client goes back to the pool.
    await client.query('SET session_replication_role = replica');
    await client.query('SELECT setseed(0.4242)');
    step('generating locations');
    await client.query(LOCATIONS_SQL);
    await client.query(
      `CREATE TABLE bench_location_ordinals AS
       SELECT row_number() OVER (ORDER BY id)::int AS n, id, latitude AS lat, longitude AS lon, estimated_radius AS radius FROM locations`,
    );
    await client.query('ALTER TABLE bench_location_ordinals ADD PRIMARY KEY (n)');
    // All bench users share one argon2 hash (hashing a million passwords would take a day).
    const hash = await hashPassword(BENCH_PASSWORD);
    const chunk = 100_000;
    for (let from = 1; from <= USER_COUNT; from += chunk) {
      step(`generating users ${from}..${from + chunk - 1}`);
      await client.query(usersSql(from, Math.min(USER_COUNT, from + chunk - 1)), [hash]);
    }
    await client.query('RESET session_replication_role');
    step('counting users per location');
    await client.query(
      `UPDATE locations l SET total_users = c.n FROM (SELECT location_id, count(*)::int AS n FROM users WHERE location_id IS NOT NULL GROUP BY 1) c
       WHERE l.id = c.location_id`,
    );
    step('vacuum analyze');
    await client.query('VACUUM (ANALYZE) locations');
    await client.query('VACUUM (ANALYZE) users');
    await client.query('INSERT INTO bench_dataset (name, seconds) VALUES ($1, $2)', [DATASET, (Date.now() - started) / 1000]);
    step('done');
  } finally {
    await client.query('RESET session_replication_role').catch(() => undefined);
    await client.query('RESET statement_timeout').catch(() => undefined);
    client.release();
  }
  return true;
}
