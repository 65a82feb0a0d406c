import { eq, sql } from 'drizzle-orm';
import type { PendingEvents } from '../../core/events.js';
import type { DbOrTx, Tx } from '../../platform/db.js';
import { locationNameSuggestions, locations, type LocationRow } from '../../models/index.js';
import { CONSIDERED_NAMES, decideConsensus, tallyNames, type ConsensusDecision, type Vote } from './consensus.js';
import { round4 } from './vote-weight.js';
import { locationUpdated } from './location-events.js';
import { logModeration } from './moderation-log.js';

export interface ConsensusOutcome {
  location: LocationRow;
  decision: ConsensusDecision;
  renamed: boolean;
  oldName: string;
}

/** How many name groups a location's `top_suggestions` lists. */
export const TOP_SUGGESTIONS = 3;

/**
 * The heaviest CONSIDERED_NAMES distinct names of a location, summed by the database (on the index of
 * (location_id, suggested_name)), with the weight and count of all its suggestions: what the consensus
 * needs, without bringing every suggestion row into the service.
 */
export async function heaviestNames(db: DbOrTx, locationId: string): Promise<{ names: Vote[]; totals: { weight: number; suggesters: number } }> {
  const result = await db.execute<{ name: string; weight: number; all_weight: number; all_count: number }>(sql`
    SELECT ${locationNameSuggestions.suggestedName} AS name, sum(${locationNameSuggestions.voteWeight}) AS weight,
           sum(sum(${locationNameSuggestions.voteWeight})) OVER () AS all_weight, sum(count(*)) OVER () AS all_count
    FROM ${locationNameSuggestions}
    WHERE ${locationNameSuggestions.locationId} = ${locationId}
    GROUP BY ${locationNameSuggestions.suggestedName}
    ORDER BY weight DESC, name
    LIMIT ${CONSIDERED_NAMES}`);
  const rows = result.rows;
  return {
    names: rows.map((r) => ({ name: r.name, weight: Number(r.weight) })),
    totals: { weight: Number(rows[0]?.all_weight ?? 0), suggesters: Number(rows[0]?.all_count ?? 0) },
  };
}

/**
 * Re-read a location's active suggestions (the heaviest names and the totals), apply the naming rule and store the result: the name (when
 * the rule says so), the name → weight map and confidence_score. Runs after every suggestion, join and
 * moderator decision, with the location row locked by the caller. A rename is logged and resets
 * moderator approval (the moderator approved the old name); `location:updated` follows any change of
 * name or confidence.
 */
export async function refreshConsensus(tx: Tx, events: PendingEvents, location: LocationRow, actorId: string | null): Promise<ConsensusOutcome> {
  const { names, totals } = await heaviestNames(tx, location.id);
  const decision = decideConsensus({ currentName: location.name, totalUsers: location.totalUsers, moderatorApproved: location.moderatorApproved, votes: names, totals });
  const nameSuggestions = Object.fromEntries(tallyNames(names).map((v) => [v.name, v.weight]));
  const renamed = decision.rename && decision.candidate !== null;
  const newName = renamed ? decision.candidate!.name : location.name;
  const confidenceChanged = decision.confidenceScore !== location.confidenceScore;
  const [row] = await tx
    .update(locations)
    .set({
      name: newName,
      nameSuggestions,
      // Stored with the decision, so that lists and details serialize it instead of grouping again per item.
      topSuggestions: decision.groups.slice(0, TOP_SUGGESTIONS).map((g) => ({ name: g.representative, votes: round4(g.totalWeight) })),
      confidenceScore: decision.confidenceScore,
      ...(renamed ? { moderatorApproved: false } : {}),
      ...(renamed || confidenceChanged ? { updatedAt: new Date() } : {}),
    })
    .where(eq(locations.id, location.id))
    .returning();
  if (renamed) {
    await logModeration(tx, {
      locationId: location.id,
      actorId,
      action: 'name_changed',
      details: { old_name: location.name, new_name: newName, confidence: decision.confidenceScore, previous_confidence: decision.currentConfidence, moderator_approval_reset: location.moderatorApproved },
    });
  }
  if (renamed || confidenceChanged) locationUpdated(events, row);
  return { location: row, decision, renamed, oldName: location.name };
}
