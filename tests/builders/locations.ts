import crypto from 'node:crypto';
import type { TestApp } from '../helpers/test-app.js';
import { unique } from '../helpers/test-app.js';
import type { TestUser } from './users.js';

/**
 * Builders for the locations tests. The shared dev database keeps rows from other runs, so every test
 * works at its own random spot in the empty South Pacific (lat -60..-45, lon -140..-100).
 */
export interface Spot {
  latitude: number;
  longitude: number;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export const aRemoteSpot = (): Spot => ({ latitude: round6(-60 + Math.random() * 15), longitude: round6(-140 + Math.random() * 40) });

/** The spot moved `north` and `east` metres (small offsets: a local flat approximation). */
export function offset(spot: Spot, north: number, east: number): Spot {
  const dLat = north / 111_320;
  const dLon = east / (111_320 * Math.cos((spot.latitude * Math.PI) / 180));
  return { latitude: round6(spot.latitude + dLat), longitude: round6(spot.longitude + dLon) };
}

/**
 * A registered user, each from its own client address: registration is rate limited per address and
 * these tests need many residents.
 */
export async function aResident(app: TestApp): Promise<TestUser> {
  const username = unique('res');
  const ip = `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;
  const input = { email: `${username}@example.test`, username, display_name: `Resident ${username}`, password: 'correct-horse-battery' };
  const res = await app.http().post('/api/auth/register/').set('X-Forwarded-For', ip).send(input);
  if (res.status !== 201) throw new Error(`aResident: register answered ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, username, email: input.email, password: input.password, token: res.body.access_token, refresh: res.body.refresh_token, body: res.body.user };
}

/** POST smart_update over REST; throws unless 200/201. */
export async function moveTo(app: TestApp, user: TestUser, spot: Spot, extra: Record<string, unknown> = {}) {
  const res = await app.rest('POST', '/api/locations/locations/smart_update/', { token: user.token, body: { ...spot, ...extra } });
  if (res.status !== 200 && res.status !== 201) throw new Error(`smart_update answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A location at a fresh remote spot, named `name` from geocoded data, with `size` residents (all at the spot). */
export async function aLocation(app: TestApp, opts: { name?: string; size?: number } = {}) {
  const spot = aRemoteSpot();
  const name = opts.name ?? unique('Place ');
  const residents: TestUser[] = [];
  let id = '';
  for (let i = 0; i < (opts.size ?? 1); i++) {
    const user = await aResident(app);
    const body = await moveTo(app, user, offset(spot, i, 0), { geocoded_data: { address: { country: 'Testland', city: name } } });
    id = body.location.id;
    residents.push(user);
  }
  return { id, spot, name, residents };
}

/** An administrator: the app must be started with ADMIN_EMAIL / ADMIN_PASSWORD = adminEnv(). */
export const adminEnv = () => ({ ADMIN_EMAIL: `${unique('admin')}@example.test`, ADMIN_PASSWORD: 'admin-password-123' });

export async function loginAdmin(app: TestApp, env: { ADMIN_EMAIL: string; ADMIN_PASSWORD: string }): Promise<string> {
  const res = await app.http().post('/api/auth/login/').set('X-Forwarded-For', '10.250.0.1').send({ username: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD });
  if (res.status !== 200) throw new Error(`admin login answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}
