import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { AppError, forbidden } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { locationNameSuggestions, locations, users } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction, type DbOrTx, type Tx } from '../../platform/db.js';
import type { PendingEvents } from '../../core/events.js';
import type { LocationRow } from '../../models/index.js';
import { userActivityCount } from './activity-counts.js';
import { heaviestNames, refreshConsensus, type ConsensusOutcome } from './consensus.service.js';
import { groupNames, groupOf } from './consensus.js';
import { getLocationOr404, lockLocation } from './locations.queries.js';
import { validateSuggestedName } from './name-rules.js';
import { sameName, similarityPercent } from './name-similarity.js';
import { accountAgeDays, round4, voteWeight } from './vote-weight.js';

/** Suggestion spam limit: 5 suggestions per user in 5 minutes, answered with the contract's own 429 body. */
export const SUGGESTION_LIMIT = { points: 5, durationSeconds: 300 } as const;
export const SUGGESTION_SPAM_BODY = { error: 'Too many suggestions. Please try again later.', retry_after: SUGGESTION_LIMIT.durationSeconds };

export async function consumeSuggestionBudget(userId: string): Promise<void> {
  try {
    await platform.rateLimits.consume('locations.suggestions', userId, SUGGESTION_LIMIT.points, SUGGESTION_LIMIT.durationSeconds);
  } catch (err) {
    if (err instanceof AppError && err.status === 429) throw new AppError(429, { ...SUGGESTION_SPAM_BODY }, { 'Retry-After': String(SUGGESTION_LIMIT.durationSeconds) });
    throw err;
  }
}

export async function currentVoteWeight(db: DbOrTx, userId: string): Promise<number> {
  const [user] = await db.select({ createdAt: users.createdAt, isVerified: users.isVerified }).from(users).where(eq(users.id, userId));
  if (!user) return 0;
  return voteWeight({ accountAgeDays: accountAgeDays(user.createdAt), activityCount: await userActivityCount(db, userId), isVerified: user.isVerified });
}

/**
 * Store the caller's suggestion (replacing their earlier one for this location) and re-run the
 * consensus. The caller has validated the name, consumed the spam budget and locked the location.
 */
export async function recordSuggestion(tx: Tx, events: PendingEvents, location: LocationRow, userId: string, name: string): Promise<ConsensusOutcome & { voteWeight: number }> {
  const weight = await currentVoteWeight(tx, userId);
  await tx
    .insert(locationNameSuggestions)
    .values({ locationId: location.id, userId, suggestedName: name, voteWeight: weight })
    .onConflictDoUpdate({
      target: [locationNameSuggestions.locationId, locationNameSuggestions.userId],
      set: { suggestedName: name, voteWeight: weight, isApproved: false, isFlagged: false, createdAt: new Date() },
    });
  const outcome = await refreshConsensus(tx, events, location, userId);
  return { ...outcome, voteWeight: weight };
}

const topOf = (outcome: ConsensusOutcome) => outcome.decision.groups.slice(0, 3).map((g) => ({ name: g.representative, votes: round4(g.totalWeight) }));

/**
 * How far beyond a location's published radius a non-member may live and still name it: the 400 m by which
 * the published centre can miss the members' centroid, and some 600 m of neighbours beyond the boundary.
 */
export const SUGGESTER_REACH_MARGIN_M = 1000;

/**
 * Only people of the place name it: its members, and people whose own point lies within its published
 * radius plus SUGGESTER_REACH_MARGIN_M of its published centre (neighbours, people on the way in). Anyone
 * else is 403: a stranger's name could only dilute the members' agreement, and each name costs the
 * consensus work. The answer depends only on the caller's own point and what the location publishes.
 */
export async function assertMayName(db: DbOrTx, userId: string, locationId: string): Promise<void> {
  const result = await db.execute<{ allowed: boolean }>(sql`
    SELECT (${users.locationId} IS NOT DISTINCT FROM ${locations.id})
        OR (${users.point} IS NOT NULL AND ${locations.center} IS NOT NULL
            AND ST_DWithin(${users.point}, ${locations.center}, ${locations.estimatedRadius} + ${SUGGESTER_REACH_MARGIN_M})) AS allowed
    FROM ${users}, ${locations}
    WHERE ${users.id} = ${userId} AND ${locations.id} = ${locationId}`);
  if (result.rows[0]?.allowed !== true) throw forbidden();
}

/** POST .../{location_id}/suggest_name/: either renames the location (accepted) or records the vote. */
export async function suggestName(ctx: AuthedContext, locationId: string, rawName: unknown) {
  await getLocationOr404(locationId);
  await assertMayName(platform.db, ctx.user.id, locationId);
  await consumeSuggestionBudget(ctx.user.id);
  const name = validateSuggestedName(rawName, 'name');
  const outcome = await transaction(platform.db, async (tx, events) => recordSuggestion(tx, events, await lockLocation(tx, locationId), ctx.user.id, name));
  if (outcome.renamed) {
    return {
      message: 'Location name updated based on community consensus',
      old_name: outcome.oldName,
      new_name: outcome.location.name,
      confidence: outcome.location.confidenceScore,
      vote_weight: outcome.voteWeight,
    };
  }
  return {
    message: 'Name suggestion recorded',
    current_name: outcome.location.name,
    suggested_name: name,
    vote_weight: outcome.voteWeight,
    top_suggestions: topOf(outcome),
  };
}

/** What smart_update reports about a suggested name sent with the coordinates. */
export function nameSuggestionSummary(outcome: ConsensusOutcome & { voteWeight: number }) {
  return {
    message: outcome.renamed ? `Location renamed to "${outcome.location.name}" based on community consensus` : 'Name suggestion recorded',
    vote_weight: outcome.voteWeight,
    top_suggestions: topOf(outcome),
  };
}

const suggestionColumns = {
  id: locationNameSuggestions.id,
  suggestedName: locationNameSuggestions.suggestedName,
  voteWeight: locationNameSuggestions.voteWeight,
  createdAt: locationNameSuggestions.createdAt,
  username: users.username,
  displayName: users.displayName,
};

/** GET .../{location_id}/name_suggestions/: grouped by similarity (default), or one by one, paginated. */
export async function nameSuggestions(ctx: AuthedContext, locationId: string, input: { show_individual?: boolean; page?: number; page_size?: number }) {
  const location = await getLocationOr404(locationId);
  const header = { location_name: location.name, confidence_score: location.confidenceScore };
  const where = eq(locationNameSuggestions.locationId, locationId);
  const base = (condition = where) =>
    platform.db
      .select(suggestionColumns)
      .from(locationNameSuggestions)
      .innerJoin(users, eq(users.id, locationNameSuggestions.userId))
      .where(condition)
      .orderBy(desc(locationNameSuggestions.voteWeight), desc(locationNameSuggestions.createdAt), locationNameSuggestions.id);

  if (input.show_individual) {
    const params = pageParams(input, { size: 20, max: 100 });
    const [{ total }] = await platform.db.select({ total: count() }).from(locationNameSuggestions).where(where);
    const rows = await base().limit(params.limit).offset(params.offset);
    const page = paginated(ctx, `/api/locations/locations/${locationId}/name_suggestions/`, params, total, rows, { show_individual: 'true' });
    return {
      ...page,
      results: {
        ...header,
        total_suggestions: total,
        view_type: 'individual' as const,
        suggestions: rows.map((r) => ({
          ...suggestionBody(r),
          is_current_name: sameName(r.suggestedName, location.name),
          similarity_to_current: similarityPercent(r.suggestedName, location.name),
        })),
      },
    };
  }

  // Grouped over the heaviest names only (the consensus's own cap), so the view costs the same bounded
  // comparisons however many names were suggested; the suggestions listed are those of these names.
  const { names, totals } = await heaviestNames(platform.db, locationId);
  const grouped = groupNames(names);
  const considered = grouped.flatMap((g) => g.names.map((n) => n.name));
  const rows = considered.length ? await base(and(where, inArray(locationNameSuggestions.suggestedName, considered))) : [];
  return {
    ...header,
    total_suggestions: totals.suggesters,
    view_type: 'grouped' as const,
    grouped_suggestions: grouped.map((g) => {
      const members = new Set(g.names.map((n) => n.name));
      const suggestions = rows.filter((r) => members.has(r.suggestedName));
      return {
        representative_name: g.representative,
        total_weight: round4(g.totalWeight),
        suggestion_count: suggestions.length,
        is_current_name: groupOf([g], location.name) !== null,
        suggestions: suggestions.map(suggestionBody),
      };
    }),
    consensus_data: location.nameSuggestions ?? {},
    top_voted_names: Object.entries(location.nameSuggestions ?? {})
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 5),
  };
}

function suggestionBody(r: { id: string; suggestedName: string; voteWeight: number; createdAt: Date; username: string; displayName: string }) {
  return {
    id: r.id,
    suggested_name: r.suggestedName,
    user: { username: r.username, display_name: r.displayName },
    vote_weight: r.voteWeight,
    created_at: r.createdAt.toISOString(),
  };
}

/** GET /api/locations/suggestions/: suggestions across locations, filtered by location and/or the caller's own. */
export async function listSuggestions(ctx: AuthedContext, input: { location_id?: string; my_suggestions?: boolean; page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const conditions = [
    input.location_id ? eq(locationNameSuggestions.locationId, input.location_id) : undefined,
    input.my_suggestions ? eq(locationNameSuggestions.userId, ctx.user.id) : undefined,
  ].filter((c) => c !== undefined);
  const where = conditions.length ? and(...conditions) : undefined;
  const [{ total }] = await platform.db.select({ total: count() }).from(locationNameSuggestions).where(where);
  const rows = await platform.db
    .select({ ...suggestionColumns, locationName: locations.name })
    .from(locationNameSuggestions)
    .innerJoin(users, eq(users.id, locationNameSuggestions.userId))
    .innerJoin(locations, eq(locations.id, locationNameSuggestions.locationId))
    .where(where)
    .orderBy(desc(locationNameSuggestions.createdAt), desc(locationNameSuggestions.id))
    .limit(params.limit)
    .offset(params.offset);
  const results = rows.map((r) => ({
    id: r.id,
    suggested_name: r.suggestedName,
    location_name: r.locationName,
    user: { username: r.username, display_name: r.displayName },
    vote_weight: r.voteWeight,
    is_current_name: sameName(r.suggestedName, r.locationName),
    similarity_to_current: similarityPercent(r.suggestedName, r.locationName),
    created_at: r.createdAt.toISOString(),
  }));
  return paginated(ctx, '/api/locations/suggestions/', params, total, results, { location_id: input.location_id, my_suggestions: input.my_suggestions ? 'true' : undefined });
}
