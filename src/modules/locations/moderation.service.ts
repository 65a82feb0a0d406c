import { eq } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { locations } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { recalculateBoundary } from './boundary.service.js';
import { refreshConsensus } from './consensus.service.js';
import { lockLocation } from './locations.queries.js';
import { serializeLocation } from './locations.serializer.js';
import { logModeration } from './moderation-log.js';

/** Flags, administrators' decisions and manual boundary recalculation; each one is in the moderation log. */

export async function flagForReview(ctx: AuthedContext, locationId: string, reason: string | undefined) {
  const location = await transaction(platform.db, async (tx) => {
    await lockLocation(tx, locationId);
    const [row] = await tx.update(locations).set({ needsVerification: true, updatedAt: new Date() }).where(eq(locations.id, locationId)).returning();
    await logModeration(tx, { locationId, actorId: ctx.user.id, action: 'flagged', details: { reason: reason ?? '' } });
    return row;
  });
  return { message: 'Location flagged for review', location_id: location.id, needs_verification: location.needsVerification };
}

/** PATCH /api/admin/locations/{id}/: approval changes the confidence (it counts for the current name). */
export async function adminUpdateLocation(ctx: AuthedContext, locationId: string, input: { moderator_approved?: boolean; needs_verification?: boolean }) {
  const location = await transaction(platform.db, async (tx, events) => {
    const before = await lockLocation(tx, locationId);
    const changes: Partial<typeof locations.$inferInsert> = { updatedAt: new Date() };
    if (input.moderator_approved !== undefined) changes.moderatorApproved = input.moderator_approved;
    if (input.needs_verification !== undefined) changes.needsVerification = input.needs_verification;
    const [row] = await tx.update(locations).set(changes).where(eq(locations.id, locationId)).returning();
    await logModeration(tx, {
      locationId,
      actorId: ctx.user.id,
      action: 'admin_update',
      details: {
        changes: input,
        previous: { moderator_approved: before.moderatorApproved, needs_verification: before.needsVerification },
      },
    });
    return (await refreshConsensus(tx, events, row, ctx.user.id)).location;
  });
  return serializeLocation(location);
}

/** POST .../{location_id}/update_boundary/ (administrators): recalculate now, whatever the user count. */
export async function updateBoundary(ctx: AuthedContext, locationId: string) {
  const result = await transaction(platform.db, async (tx, events) => recalculateBoundary(tx, events, await lockLocation(tx, locationId), 'manual', ctx.user.id));
  return {
    message: result.members === 0 ? 'No member coordinates to draw a boundary from; boundary unchanged' : result.changed ? 'Boundary updated' : 'Boundary unchanged',
    members_with_coordinates: result.members,
    previous: result.previous,
    location: serializeLocation(result.location),
  };
}
