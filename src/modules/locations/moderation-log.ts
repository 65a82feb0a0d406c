import type { Tx } from '../../platform/db.js';
import { locationModerationLogs, type ModerationAction } from '../../models/index.js';

/** Every name change, boundary recalculation, flag and administrative action lands here, in the same transaction. */
export async function logModeration(tx: Tx, entry: { locationId: string; actorId: string | null; action: ModerationAction; details: Record<string, unknown> }): Promise<void> {
  await tx.insert(locationModerationLogs).values(entry);
}
