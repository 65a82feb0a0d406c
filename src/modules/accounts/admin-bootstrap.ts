import crypto from 'node:crypto';
import { platform } from '../../platform/index.js';
import { users } from '../../models/index.js';
import { findUserByEmail, findUserByUsername } from '../users/users.queries.js';
import { hashPassword } from './passwords.js';

/** ADMIN_EMAIL/ADMIN_PASSWORD: create that administrator (staff + admin) on start if no such user exists. */
export async function bootstrapAdmin(): Promise<void> {
  const { ADMIN_EMAIL: email, ADMIN_PASSWORD: password } = platform.config;
  if (!email || !password) return;
  if (await findUserByEmail(email)) return;
  let username = email.split('@')[0].replace(/[^\w.@+-]/g, '').slice(0, 140) || 'admin';
  if (await findUserByUsername(username)) username = `${username}${crypto.randomInt(1000, 9999)}`;
  await platform.db
    .insert(users)
    .values({
      email,
      username,
      displayName: 'Administrator',
      passwordHash: await hashPassword(password),
      isStaff: true,
      isAdmin: true,
      isVerified: true,
      referralCode: newReferralCode(),
    })
    .onConflictDoNothing();
  platform.log.info({ email, username }, 'administrator created from ADMIN_EMAIL');
}

export const newReferralCode = () => crypto.randomBytes(6).toString('base64url').toUpperCase().replace(/[^A-Z0-9]/g, 'X');
