import { eq, sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import type { PendingEvents } from '../../core/events.js';
import { users } from '../../models/index.js';
import { platform } from '../../platform/index.js';
import { transaction, type DbOrTx } from '../../platform/db.js';
import { findUserById, findUserByUsername } from '../users/users.queries.js';
import { serializeUser } from '../users/users.serializer.js';
import { endAllSessions } from './sessions.js';
import { recordAccessChange } from './access-changes.js';

/**
 * What an account may do: an administrator's grants (verified, staff) and deactivation, and a moderator's
 * suspension. Here, in accounts, beside the sessions and access changes they end and announce, so that users
 * (profiles) stands below accounts and imports none of it.
 */
declare module '../../core/events.js' {
  interface DomainEventMap {
    /** A deactivated user's live sockets are closed. */
    'user.deactivated': { userId: string };
    /**
     * What a user may do or which of its tokens are valid has changed (rights, deactivation, sessions
     * ended): every node forgets what it cached about this caller and checks it again.
     */
    'user.access_changed': { userId: string };
  }
}

/**
 * Deactivates an account in the caller's transaction (an administrator's `is_active: false`, a moderator's
 * suspension): it can no longer log in, every session ends at once (refresh tokens revoked, access tokens issued
 * until now refused, on every node), and its live sockets are closed after the commit. A later reactivation
 * revives no old token. False when it was already inactive or is gone.
 */
export async function deactivateUser(db: DbOrTx, events: PendingEvents, userId: string): Promise<boolean> {
  const { rows } = await db.execute(sql`UPDATE users SET is_active = false, updated_at = now() WHERE id = ${userId}::uuid AND is_active RETURNING id`);
  if (!rows.length) return false;
  await endAllSessions(db, events, userId);
  events.add('user.deactivated', { userId });
  return true;
}

export async function adminUpdateUser(ctx: AuthedContext, username: string, input: { is_verified?: boolean; is_staff?: boolean; is_active?: boolean }) {
  const target = await findUserByUsername(username);
  if (!target) throw notFound();
  const changes: Partial<typeof users.$inferInsert> = { updatedAt: new Date() };
  if (input.is_verified !== undefined) changes.isVerified = input.is_verified;
  if (input.is_staff !== undefined) changes.isStaff = input.is_staff;
  // Deactivation goes through deactivateUser below (as a moderator's suspension does); reactivation is a plain change.
  if (input.is_active === true) changes.isActive = true;
  await transaction(platform.db, async (tx, events) => {
    await tx.update(users).set(changes).where(eq(users.id, target.id));
    const rightsChanged =
      (input.is_verified !== undefined && input.is_verified !== target.isVerified) ||
      (input.is_staff !== undefined && input.is_staff !== target.isStaff) ||
      (input.is_active !== undefined && input.is_active !== target.isActive);
    if (input.is_active === false && target.isActive) {
      await deactivateUser(tx, events, target.id);
    } else if (rightsChanged) {
      // Every node drops what it cached about this caller (the realtime layer's caller cache).
      await recordAccessChange(tx, events, target.id);
    }
  });
  const user = (await findUserById(target.id))!;
  return { ...serializeUser(user, ctx), is_staff: user.isStaff, is_active: user.isActive };
}
