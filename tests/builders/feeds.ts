import type { TestApp } from '../helpers/test-app.js';
import { unique } from '../helpers/test-app.js';
import type { TestUser } from './users.js';
import { aRemoteSpot, aResident, moveTo, offset, type Spot } from './locations.js';
import { snapToCell } from '../../src/modules/locations/public-grid.js';

/**
 * Builders for the feeds tests: a city of places at known distances. Spots are cell centres of the published
 * grid, so a place's published centre is exactly where its founder stood and distances are predictable.
 */
export interface City {
  name: string;
  centre: Spot;
}

export function aCity(): City {
  const spot = aRemoteSpot();
  return { name: unique('Feedtown '), centre: snapToCell(spot.latitude, spot.longitude) };
}

/** A resident who founded (or joined) the place at `north`/`east` metres from the city's centre. */
export async function aResidentAt(app: TestApp, city: City, north = 0, east = 0): Promise<TestUser & { locationId: string }> {
  const user = await aResident(app);
  const body = await moveTo(app, user, offset(city.centre, north, east), { geocoded_data: { address: { country: 'Feedland', city: city.name } } });
  return { ...user, locationId: body.location.id };
}

/** GET one feed page over REST; throws unless the status is `status`. */
export async function aFeedPage(app: TestApp, user: TestUser, path: string, query: Record<string, unknown> = {}, status = 200): Promise<any> {
  const res = await app.rest('GET', path, { token: user.token, query });
  if (res.status !== status) throw new Error(`${path} answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
