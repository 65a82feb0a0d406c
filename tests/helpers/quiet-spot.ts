import { eq, sql } from 'drizzle-orm';
import { platform } from '../../src/platform/index.js';
import { locations, users } from '../../src/models/index.js';
import { pointEwkt } from '../../src/models/geography.js';

/**
 * A random spot nobody else uses: the shared CI database keeps users of earlier runs and of other
 * test files, so a spot is taken only when no user or location lies within 250 km of it.
 */
export async function aQuietSpot(maxLatitude = 65): Promise<{ latitude: number; longitude: number }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const spot = { latitude: -maxLatitude + Math.random() * 2 * maxLatitude, longitude: -179 + Math.random() * 358 };
    const here = sql`${pointEwkt(spot.longitude, spot.latitude)}::geography`;
    const [{ n }] = await platform.db
      .select({ n: sql<number>`count(*)::int` })
      .from(users)
      .leftJoin(locations, eq(users.locationId, locations.id))
      .where(sql`ST_DWithin(coalesce(${users.point}, ${locations.center}, ${locations.point}), ${here}, 250000)`);
    if (n === 0) return spot;
  }
  throw new Error('no quiet spot found');
}
