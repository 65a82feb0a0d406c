import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';

/**
 * `popular_locations`: the 20 locations with the most posts. Counting them is a GROUP BY over every post, so it is
 * not done per call (any stranger could call it 600 times a minute): the counts are kept in the materialized view
 * `popular_location_counts` (migration 0018), refreshed every minute by posts.popular_locations_refresh. A caller
 * sees counts up to one refresh old (a minute, plus the refresh's own time); names and levels are read live.
 */
export type PopularLocation = {
  id: string;
  name: string;
  post_count: number;
  country: string | null;
  state: string | null;
  city: string | null;
  neighbourhood: string | null;
};

export async function popularLocations(): Promise<{ count: number; locations: PopularLocation[] }> {
  const { rows } = await platform.db.execute<PopularLocation>(sql`
    SELECT l.id, l.name, c.post_count, l.country, l.state, l.city, l.neighbourhood
    FROM popular_location_counts c JOIN locations l ON l.id = c.location_id
    ORDER BY c.post_count DESC, l.id`);
  return { count: rows.length, locations: rows };
}

/**
 * Count again. CONCURRENTLY: reads keep the previous counts while it runs, instead of waiting for it; two refreshes
 * at once (two nodes without Redis) queue on the view's lock, and the second counts again, which is harmless.
 */
export async function refreshPopularLocations(): Promise<void> {
  await platform.db.execute(sql`REFRESH MATERIALIZED VIEW CONCURRENTLY popular_location_counts`);
}
