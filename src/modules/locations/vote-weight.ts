/**
 * The weight of one user's name suggestion (contract: name consensus rules).
 *
 *   age       = 0.1 + 1.9 × min(1, account age in days / 730)     0.1 for a new account, 2.0 at two years
 *   activity  = 1 + 0.5 × min(1, (posts + comments) / 50)          up to 1.5 × at 50 items
 *   verified  = 1.2 when the account is verified, else 1
 *   newcomer  = 0.5 when the account is under 7 days old, else 1
 *   weight    = age × activity × verified × newcomer, rounded to 4 decimals
 *
 * So a brand-new account weighs 0.05, a verified two-year-old active account 3.6.
 */
export interface VoterFacts {
  accountAgeDays: number;
  /** Posts plus comments written by the user (see user-activity.ts). */
  activityCount: number;
  isVerified: boolean;
}

const FULL_AGE_DAYS = 730;
const FULL_ACTIVITY = 50;
const NEWCOMER_DAYS = 7;

export function voteWeight({ accountAgeDays, activityCount, isVerified }: VoterFacts): number {
  const days = Math.max(0, accountAgeDays);
  const age = 0.1 + 1.9 * Math.min(1, days / FULL_AGE_DAYS);
  const activity = 1 + 0.5 * Math.min(1, Math.max(0, activityCount) / FULL_ACTIVITY);
  const verified = isVerified ? 1.2 : 1;
  const newcomer = days < NEWCOMER_DAYS ? 0.5 : 1;
  return round4(age * activity * verified * newcomer);
}

export const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
export const accountAgeDays = (createdAt: Date, now = new Date()) => (now.getTime() - createdAt.getTime()) / 86_400_000;
