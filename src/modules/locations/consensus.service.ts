import { eq } from 'drizzle-orm';
import type { PendingEvents } from '../../core/events.js';
import type { Tx } from '../../platform/db.js';
import { locationNameSuggestions, locations, type LocationRow } from '../../models/index.js';
import { decideConsensus, tallyNames, type ConsensusDecision } from './consensus.js';
import { locationUpdated } from './location-events.js';
import { logModeration } from './moderation-log.js';

export interface ConsensusOutcome {
  location: LocationRow;
  decision: ConsensusDecision;
  renamed: boolean;
  oldName: string;
}

/**
 * Re-read a location's active suggestions, apply the naming rule and store the result: the name (when
 * the rule says so), the name → weight map and confidence_score. Runs after every suggestion, join and
 * moderator decision, with the location row locked by the caller. A rename is logged and resets
 * moderator approval (the moderator approved the old name); `location:updated` follows any change of
 * name or confidence.
 */
export async function refreshConsensus(tx: Tx, events: PendingEvents, location: LocationRow, actorId: string | null): Promise<ConsensusOutcome> {
  const votes = await tx
    .select({ name: locationNameSuggestions.suggestedName, weight: locationNameSuggestions.voteWeight })
    .from(locationNameSuggestions)
    .where(eq(locationNameSuggestions.locationId, location.id));
  const decision = decideConsensus({ currentName: location.name, totalUsers: location.totalUsers, moderatorApproved: location.moderatorApproved, votes });
  const nameSuggestions = Object.fromEntries(tallyNames(votes).map((v) => [v.name, v.weight]));
  const renamed = decision.rename && decision.candidate !== null;
  const newName = renamed ? decision.candidate!.name : location.name;
  const confidenceChanged = decision.confidenceScore !== location.confidenceScore;
  const [row] = await tx
    .update(locations)
    .set({
      name: newName,
      nameSuggestions,
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
