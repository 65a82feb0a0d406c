import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { platform } from '../../platform/index.js';
import { notBlockedWith } from '../policy/visibility.js';
import { loadStoreSummaries } from '../stores/summaries.js';
import { loadCommunitySummaries, type CommunitySummary } from '../communities/summaries.js';
import { block, ENHANCEMENT_SIZE, enhancementPlaces, type EnhancementBlock } from './enhancements.service.js';

/**
 * Stores and communities near the caller (enhancements.service.ts decides "near"): ids chosen here, one
 * query over the places (each place's rows from its location index, nearest place first), then the owning
 * modules' summaries for the chosen ids in one query each.
 */
export interface StoreSuggestion {
  id: string;
  name: string;
  description: string;
  logo: string | null;
  location_name: string | null;
  owner: { username: string; display_name: string };
}

const placeArrays = (places: Array<{ locationId: string; penalty: number }>) => ({
  ids: sql.param(places.map((p) => p.locationId)),
  penalties: sql.param(places.map((p) => p.penalty)),
});

/**
 * Stores of the places near the caller, newest first within a place; never the caller's own stores, nor a shop whose
 * owner is in a block with the caller (no order, no review there: DESIGN.md section 9, "Every path").
 */
export async function storeSuggestions(ctx: AuthedContext, input: { location_id?: string }): Promise<EnhancementBlock<StoreSuggestion>> {
  const { places, name } = await enhancementPlaces(ctx, input.location_id);
  if (!places.length) return block('stores', [], 'Stores near you');
  const { ids, penalties } = placeArrays(places);
  const { rows } = await platform.db.execute<{ id: string }>(sql`
    SELECT s.id FROM unnest(${ids}::uuid[], ${penalties}::bigint[]) AS n(location_id, penalty)
    CROSS JOIN LATERAL (
      SELECT s.id, s.created_at FROM stores s
      WHERE s.location_id = n.location_id AND s.owner_id <> ${ctx.user.id}::uuid AND ${notBlockedWith(ctx.user.id, sql`s.owner_id`)}
      ORDER BY s.created_at DESC, s.id DESC LIMIT ${ENHANCEMENT_SIZE}
    ) s
    ORDER BY n.penalty, s.created_at DESC, s.id DESC
    LIMIT ${ENHANCEMENT_SIZE}`);
  const summaries = await loadStoreSummaries(rows.map((r) => r.id), ctx.baseUrl);
  const items = rows.flatMap((r) => {
    const s = summaries.get(r.id);
    return s ? [{ id: s.id, name: s.name, description: s.description, logo: s.logo, location_name: s.location_name, owner: s.owner }] : [];
  });
  return block('stores', items, name ? `Stores near ${name}` : 'Stores near you');
}

/** Communities of the places near the caller, most members first within a place; never one the caller is in (owners are members). */
export async function communitySuggestions(ctx: AuthedContext, input: { location_id?: string }): Promise<EnhancementBlock<CommunitySummary>> {
  const { places, name } = await enhancementPlaces(ctx, input.location_id);
  if (!places.length) return block('communities', [], 'Communities near you');
  const { ids, penalties } = placeArrays(places);
  const { rows } = await platform.db.execute<{ id: string }>(sql`
    SELECT c.id FROM unnest(${ids}::uuid[], ${penalties}::bigint[]) AS n(location_id, penalty)
    CROSS JOIN LATERAL (
      SELECT c.id, c.members_count FROM communities c
      WHERE c.location_id = n.location_id AND c.owner_id <> ${ctx.user.id}::uuid
        AND NOT EXISTS (SELECT 1 FROM community_members m WHERE m.community_id = c.id AND m.user_id = ${ctx.user.id}::uuid)
      ORDER BY c.members_count DESC, c.id DESC LIMIT ${ENHANCEMENT_SIZE}
    ) c
    ORDER BY n.penalty, c.members_count DESC, c.id DESC
    LIMIT ${ENHANCEMENT_SIZE}`);
  const summaries = await loadCommunitySummaries(rows.map((r) => r.id), ctx.baseUrl);
  const items = rows.flatMap((r) => {
    const c = summaries.get(r.id);
    return c ? [c] : [];
  });
  return block('communities', items, name ? `Communities near ${name}` : 'Communities near you');
}
