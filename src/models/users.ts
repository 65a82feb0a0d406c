import { pgTable, primaryKey, uuid, text, numeric, boolean, timestamp, integer, bigint, index, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { geographyPoint } from './geography.js';
import { locations } from './locations.js';

export const RELATIONSHIP_STATUSES = [
  'lonely_af', 'forever_alone', 'looking_for_love', 'taken', 'emotionally_unavailable', 'waiting', 'swiping', 'career_married',
] as const;

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull(),
  username: text('username').notNull(),
  displayName: text('display_name').notNull(),
  passwordHash: text('password_hash').notNull(),
  bio: text('bio').notNull().default(''),
  website: text('website').notNull().default(''),
  profilePicture: text('profile_picture'),
  banner: text('banner'),
  relationshipStatus: text('relationship_status', { enum: RELATIONSHIP_STATUSES }),
  latitude: numeric('latitude', { precision: 11, scale: 8 }),
  longitude: numeric('longitude', { precision: 11, scale: 8 }),
  point: geographyPoint('point'),
  /** The centre of the published grid cell the point lies in (a trigger keeps it); nearby users measures with it. */
  publicPoint: geographyPoint('public_point'),
  locationId: uuid('location_id').references(() => locations.id, { onDelete: 'set null' }),
  isVerified: boolean('is_verified').notNull().default(false),
  isStaff: boolean('is_staff').notNull().default(false),
  isAdmin: boolean('is_admin').notNull().default(false),
  isActive: boolean('is_active').notNull().default(true),
  /** Migration 0029: false keeps the person out of search by name, and their posts and comments out of search. */
  discoverable: boolean('discoverable').notNull().default(true),
  referralCode: text('referral_code').notNull(),
  referrerCode: text('referrer_code'),
  referredById: uuid('referred_by_id').references((): AnyPgColumn => users.id, { onDelete: 'set null' }),
  refSource: text('ref_source'),
  refMedium: text('ref_medium'),
  refCampaign: text('ref_campaign'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  /** Access tokens issued at or before this moment are refused (sessions ended: password reset, deactivation). */
  tokensValidAfter: timestamp('tokens_valid_after', { withTimezone: true }),
});

export const refreshTokens = pgTable('refresh_tokens', {
  jti: uuid('jti').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  familyId: uuid('family_id').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
  /** The successor issued when this token was rotated (reuse grace window). */
  replacedBy: uuid('replaced_by'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** (account, keyed hash of the client address) pairs that logged in: their own login budget. */
export const loginClients = pgTable(
  'login_clients',
  {
    userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    clientKey: text('client_key').notNull(),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.clientKey] })],
);

export const passwordResets = pgTable('password_resets', {
  userId: uuid('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  otpHash: text('otp_hash').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  failedAttempts: integer('failed_attempts').notNull().default(0),
  consumedAt: timestamp('consumed_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Every change of a user's access, written in the transaction that makes it; each node polls the recent rows
 * (modules/accounts/access-changes.ts). No foreign key: a deleted user's change must stay readable.
 */
export const accessChanges = pgTable(
  'access_changes',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid('user_id').notNull(),
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull().default(sql`clock_timestamp()`),
  },
  (t) => [index('access_changes_changed_at_idx').on(t.changedAt)],
);

export type UserRow = typeof users.$inferSelect;
