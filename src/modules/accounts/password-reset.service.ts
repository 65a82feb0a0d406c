import crypto from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { passwordResets, users } from '../../models/index.js';
import { fieldError, nonFieldError } from '../../core/errors.js';
import { findUserByEmail } from '../users/users.queries.js';
import { hashPassword } from './passwords.js';
import { endAllSessions } from './sessions.js';

/**
 * Password reset by a 6-digit code sent by mail: valid 10 minutes, single use, locked after 5 wrong
 * tries until a new code is requested. Only a keyed hash of the code is stored.
 */
const OTP_LIFETIME_MS = 10 * 60 * 1000;
export const MAX_FAILED_ATTEMPTS = 5;

const otpHash = (userId: string, otp: string) => crypto.createHmac('sha256', platform.jwtSecret).update(`${userId}:${otp}`).digest('hex');

export async function requestPasswordReset(email: string): Promise<{ detail: string }> {
  const user = await findUserByEmail(email);
  if (!user || !user.isActive) throw fieldError('email', 'User with this email does not exist.');
  const otp = String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');
  const values = { otpHash: otpHash(user.id, otp), expiresAt: new Date(Date.now() + OTP_LIFETIME_MS), failedAttempts: 0, consumedAt: null, createdAt: new Date() };
  await platform.db.insert(passwordResets).values({ userId: user.id, ...values }).onConflictDoUpdate({ target: passwordResets.userId, set: values });
  await platform.mailer.send({
    to: user.email,
    subject: 'Your password reset code',
    text: `Hello ${user.displayName},\n\nYour password reset code is ${otp}. It expires in 10 minutes.\n\nIf you did not ask for it, ignore this mail.`,
  });
  return { detail: 'OTP sent to your email.' };
}

export async function confirmPasswordReset(input: { email: string; otp: string; new_password: string }): Promise<{ detail: string }> {
  const user = await findUserByEmail(input.email);
  if (!user || !user.isActive) throw nonFieldError('Invalid user.');
  const newHash = await hashPassword(input.new_password);
  // The failure count must survive the error response, so a wrong code commits its increment.
  const outcome = await transaction(platform.db, async (tx, events) => {
    const [reset] = await tx.select().from(passwordResets).where(eq(passwordResets.userId, user.id)).for('update');
    if (!reset || reset.consumedAt || reset.expiresAt.getTime() < Date.now()) return 'expired' as const;
    if (reset.failedAttempts >= MAX_FAILED_ATTEMPTS) return 'locked' as const;
    const expected = Buffer.from(reset.otpHash, 'hex');
    const given = Buffer.from(otpHash(user.id, input.otp), 'hex');
    if (!crypto.timingSafeEqual(expected, given)) {
      await tx.update(passwordResets).set({ failedAttempts: sql`${passwordResets.failedAttempts} + 1` }).where(eq(passwordResets.userId, user.id));
      return 'wrong' as const;
    }
    await tx.update(passwordResets).set({ consumedAt: new Date() }).where(eq(passwordResets.userId, user.id));
    await tx.update(users).set({ passwordHash: newHash, updatedAt: new Date() }).where(eq(users.id, user.id));
    // Whoever knew the old password loses their sessions, access tokens included.
    await endAllSessions(tx, events, user.id);
    return 'done' as const;
  });
  if (outcome === 'expired') throw nonFieldError('OTP has expired or is invalid.');
  if (outcome === 'locked') throw nonFieldError('Too many failed attempts. Please request a new OTP.');
  if (outcome === 'wrong') throw nonFieldError('Invalid or expired OTP.');
  return { detail: 'Password has been reset successfully.' };
}


/**
 * What the per-account budget on confirmations counts: the account an email names (any case), so that
 * guesses spread over many addresses still share one budget; an email of no account is counted as itself.
 */
export async function resetAccountKey(input: Record<string, unknown>): Promise<string | null> {
  const email = typeof input.email === 'string' ? input.email.trim() : '';
  if (!email) return null;
  const user = email.length <= 254 ? await findUserByEmail(email) : null;
  return user ? `user:${user.id}` : `email:${email.toLowerCase()}`;
}
