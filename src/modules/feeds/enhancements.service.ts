import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { platform } from '../../platform/index.js';
import { notBlockedWith } from '../policy/visibility.js';
import { mediaUrl } from '../users/users.serializer.js';
import { findHome, findPlace, neighbourhoodOf, type ScopedPlace } from './scope.queries.js';

/**
 * Feed enhancements (contract, Feed enhancement items): blocks of people, stores and communities near the
 * caller that the client injects between feed items. "Near" is the neighbourhood of `location_id` when
 * given, else of the caller's own place (scope.queries.ts); nearest places first (people: only near the caller's
 * home, see `peoplePlaces`). A caller with neither gets an empty block, never an error. The caller never sees itself,
 * nor what it owns or already belongs to, nor anyone in a block with it (people, and the owners of stores).
 */
export const ENHANCEMENT_SIZE = 10;

export type EnhancementType = 'users' | 'stores' | 'communities';

/** Where the client places each block when it has items (positions in the feed's item list, zero based). */
export const INJECT_AT: Record<EnhancementType, number[]> = { users: [4], stores: [9], communities: [14] };

export const ENHANCEMENT_TYPES: EnhancementType[] = ['users', 'stores', 'communities'];

export function enhancementEndpoints(locationId: string | null): string[] {
  const query = locationId ? `?location_id=${locationId}` : '';
  return ENHANCEMENT_TYPES.map((type) => `/api/feed/enhancements/${type}/${query}`);
}

export interface EnhancementBlock<T> {
  type: EnhancementType;
  items: T[];
  inject_at_positions: number[];
  title: string;
}

/** The places an enhancement looks in: the neighbourhood of `location_id` (404 if unknown) or of the caller's home. */
export async function enhancementPlaces(ctx: AuthedContext, locationId: string | undefined): Promise<{ places: ScopedPlace[]; name: string | null }> {
  const place = locationId ? await findPlace(locationId) : await findHome(ctx.user.id);
  if (!place) {
    if (locationId) throw notFound();
    return { places: [], name: null };
  }
  return { places: await neighbourhoodOf(place.id), name: place.name };
}

export function block<T>(type: EnhancementType, items: T[], title: string): EnhancementBlock<T> {
  return { type, items, inject_at_positions: items.length ? INJECT_AT[type] : [], title };
}

export interface UserSuggestion {
  id: string;
  username: string;
  display_name: string;
  profile_picture: string | null;
  bio: string;
}

/**
 * The places whose residents the caller may be offered: those near where the caller lives, and no others. Stores
 * and communities are public listings that anyone may browse anywhere (a location feed's blocks name its place),
 * but people are offered only near home: a `location_id` outside the caller's neighbourhood gets an empty block
 * (not an error: the location feed of a far place links this block too), else anyone could list who lives in any
 * place (docs/modules/feeds.md, "Enhancements").
 */
async function peoplePlaces(ctx: AuthedContext, locationId: string | undefined): Promise<{ places: ScopedPlace[]; name: string | null }> {
  const asked = locationId ? await findPlace(locationId) : null;
  if (locationId && !asked) throw notFound();
  const home = await findHome(ctx.user.id);
  if (!home) return { places: [], name: null };
  const places = await neighbourhoodOf(home.id);
  if (asked && !places.some((p) => p.locationId === asked.id)) return { places: [], name: null };
  return { places, name: asked?.name ?? home.name };
}

/**
 * People living in the places near the caller's home, nearest place first, then newest; never the caller, and never
 * anyone in a block with the caller, either way (DESIGN.md section 9, "Every path": every list of people).
 */
export async function userSuggestions(ctx: AuthedContext, input: { location_id?: string }): Promise<EnhancementBlock<UserSuggestion>> {
  const { places, name } = await peoplePlaces(ctx, input.location_id);
  if (!places.length) return block('users', [], 'People near you');
  const { rows } = await platform.db.execute<{ id: string; username: string; display_name: string; profile_picture: string | null; bio: string }>(sql`
    SELECT s.id, s.username, s.display_name, s.profile_picture, s.bio
    FROM unnest(${sql.param(places.map((p) => p.locationId))}::uuid[], ${sql.param(places.map((p) => p.penalty))}::bigint[]) AS n(location_id, penalty)
    CROSS JOIN LATERAL (
      SELECT u.id, u.username, u.display_name, u.profile_picture, u.bio, u.created_at FROM users u
      WHERE u.location_id = n.location_id AND u.is_active AND u.id <> ${ctx.user.id}::uuid AND ${notBlockedWith(ctx.user.id, sql`u.id`)}
      ORDER BY u.created_at DESC, u.id DESC
      LIMIT ${ENHANCEMENT_SIZE}
    ) s
    ORDER BY n.penalty, s.created_at DESC, s.id DESC
    LIMIT ${ENHANCEMENT_SIZE}`);
  const items = rows.map((r) => ({ id: r.id, username: r.username, display_name: r.display_name, profile_picture: mediaUrl(r.profile_picture, ctx.baseUrl), bio: r.bio }));
  return block('users', items, name ? `People near ${name}` : 'People near you');
}
