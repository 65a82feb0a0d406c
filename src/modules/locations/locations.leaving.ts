import { asc, inArray, sql } from 'drizzle-orm';
import { locations } from '../../models/index.js';
import type { AccountDeletionStep } from '../../core/leaving.js';
import { refreshConsensus } from './consensus.service.js';
import { assignUserLocation } from './membership.service.js';

/**
 * The account leaves its location (its `total_users` drops and its consensus is refreshed, as any move away does)
 * and its name suggestions go, each place it named getting its consensus refreshed without that vote. The moderation
 * log keeps what happened to a place, with the actor cleared by the foreign key. The place's published boundary is
 * redrawn by the nightly job, as after any move away.
 */
export const locationsLeaving: AccountDeletionStep = {
  module: 'locations',
  handles: {
    'location_name_suggestions.user_id': 'step',
    'location_moderation_logs.actor_id': 'set null',
  },
  async run({ tx, events, userId }) {
    // Lock order of membership.service.ts: the user row (held since the deletion began), then every location
    // involved at once, in id order, before any of them is written.
    const { rows: named } = await tx.execute<{ location_id: string }>(sql`
      SELECT DISTINCT location_id FROM location_name_suggestions WHERE user_id = ${userId}
      UNION
      SELECT location_id FROM users WHERE id = ${userId} AND location_id IS NOT NULL`);
    const ids = named.map((r) => r.location_id);
    if (!ids.length) return;
    await tx.select({ id: locations.id }).from(locations).where(inArray(locations.id, ids)).orderBy(asc(locations.id)).for('update');
    await tx.execute(sql`DELETE FROM location_name_suggestions WHERE user_id = ${userId}`);
    const { rows: home } = await tx.execute<{ location_id: string | null }>(sql`SELECT location_id FROM users WHERE id = ${userId}`);
    const homeId = home[0]?.location_id ?? null;
    // Moving to no location refreshes the place left (without the suggestion, deleted just above).
    if (homeId) await assignUserLocation(tx, events, userId, null);
    const others = ids.filter((id) => id !== homeId);
    if (!others.length) return;
    const rows = await tx.select().from(locations).where(inArray(locations.id, others)).orderBy(asc(locations.id));
    for (const location of rows) await refreshConsensus(tx, events, location, null);
  },
};
