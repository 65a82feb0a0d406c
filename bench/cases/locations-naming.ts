import crypto from 'node:crypto';
import { loadAuthUsers, seededRandom, type Bench } from '../lib/harness.js';
import { measure } from '../lib/stats.js';
import { iterations, type BenchCase, type Measurement } from './case.js';

/**
 * Consensus naming on a location that collected many distinct names (the quadratic-grouping abuse):
 * one location of 500 members, each with a different suggested name, then a suggestion, a join and a list
 * call timed against it. Self-contained (its own rows, at a spot of its own, removed again afterwards), so it
 * needs no generated dataset and leaves the locations case's data as it found it.
 */
const MEMBERS = 500;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** A pronounceable-enough name of 12-20 letters that no other one resembles at 85 %. */
function distinctName(random: () => number): string {
  const length = 12 + Math.floor(random() * 9);
  let s = '';
  for (let i = 0; i < length; i++) s += LETTERS[Math.floor(random() * LETTERS.length)];
  return s[0].toUpperCase() + s.slice(1);
}

export const locationsNamingCase: BenchCase = {
  name: 'locations-naming',
  async run(bench) {
    const n = iterations(bench, 100);
    const tag = `bn${crypto.randomBytes(4).toString('hex')}`;
    // A spot in the empty South Atlantic, different on each run: no other location is near it.
    const lat = -40 - Math.random() * 5;
    const lon = -20 - Math.random() * 5;
    const city = `Naming ${tag}`;
    const { pool } = bench;
    const [{ id: locationId }] = (
      await pool.query<{ id: string }>(
        `INSERT INTO locations (name, city, latitude, longitude, point, center, center_latitude, center_longitude, total_users, estimated_radius)
         VALUES ($1, $1, $2::float8, $3::float8, ST_SetSRID(ST_MakePoint($3::float8, $2::float8), 4326)::geography, ST_SetSRID(ST_MakePoint($3::float8, $2::float8), 4326)::geography, $2::float8, $3::float8, $4, 2000) RETURNING id`,
        [city, lat, lon, MEMBERS],
      )
    ).rows;
    // Members (each suggested a different name) and newcomers (each joins once while timed), all two years old.
    await pool.query(
      `INSERT INTO users (email, username, display_name, password_hash, referral_code, latitude, longitude, point, location_id, created_at)
       SELECT $1 || '_' || g || '@bench.invalid', $1 || '_' || g, 'Naming ' || g, 'x', $1 || g, $2::float8, $3::float8, ST_SetSRID(ST_MakePoint($3::float8, $2::float8), 4326)::geography,
              CASE WHEN g <= $4::int THEN $5::uuid END, now() - interval '730 days'
       FROM generate_series(1, $4::int + $6::int) g`,
      [tag, lat, lon, MEMBERS, locationId, n + 20],
    );
    const random = seededRandom(7);
    const names = Array.from({ length: MEMBERS }, () => distinctName(random));
    await pool.query(
      `INSERT INTO location_name_suggestions (location_id, user_id, suggested_name, vote_weight)
       SELECT $1, u.id, ($2::text[])[row_number() OVER (ORDER BY u.username)], 2.0 FROM users u WHERE u.location_id = $1`,
      [locationId, names],
    );
    const members = await loadAuthUsers(pool, `location_id = $1 ORDER BY username`, [locationId]);
    const newcomers = await loadAuthUsers(pool, `username LIKE $1 AND location_id IS NULL ORDER BY username`, [`${tag}\\_%`]);
    const results: Measurement[] = [];
    try {
      // Each member replaces its suggestion with another new name: still 500 distinct names.
      const suggest = (i: number) => bench.call('locations.suggest_name', { location_id: locationId, name: distinctName(random) }, members[i % members.length]);
      results.push({ name: 'suggest_name (500 distinct names)', samples: await measure(suggest, { iterations: n, warmup: 10 }), note: 'a member replaces its suggestion' });
      const join = (i: number) => bench.call('locations.smart_update', { latitude: lat, longitude: lon }, newcomers[i]);
      results.push({ name: 'smart_update join (500 distinct names)', samples: await measure(join, { iterations: n, warmup: 10 }) });
      const list = () => bench.call('locations.list', { city }, members[0]);
      results.push({ name: 'locations.list (1 item, 500 distinct names)', samples: await measure(list, { iterations: n, warmup: 10 }) });
      const grouped = () => bench.call('locations.name_suggestions', { location_id: locationId }, members[0]);
      results.push({ name: 'name_suggestions grouped (500 distinct names)', samples: await measure(grouped, { iterations: Math.min(n, 30), warmup: 3 }) });
    } finally {
      await pool.query('DELETE FROM users WHERE username LIKE $1', [`${tag}\\_%`]);
      await pool.query('DELETE FROM locations WHERE id = $1', [locationId]);
    }
    return results;
  },
};
