import type { Operation, RateLimitRule } from './operation.js';

/**
 * Every operation is rate limited. One that declares no limit counted per caller (per user, per IP for an
 * anonymous caller) inherits the default: reads (GET) and writes each have a per-minute budget, counted per
 * operation. Limits keyed by the input (login per account) do not count as a caller limit: a caller could
 * spread its calls over many accounts.
 */
export interface DefaultRateLimits {
  readsPerMinute: number;
  writesPerMinute: number;
}

/** The defaults of RATE_LIMIT_DEFAULT_READS_PER_MINUTE / RATE_LIMIT_DEFAULT_WRITES_PER_MINUTE (config.ts). */
export const DEFAULT_RATE_LIMITS: DefaultRateLimits = { readsPerMinute: 600, writesPerMinute: 120 };

export const isCallerKeyed = (rule: RateLimitRule): rule is RateLimitRule & { key: 'ip' | 'user' } => rule.key === 'ip' || rule.key === 'user';

/** The limits that apply to `op`: its own, plus the default when none of its own is counted per caller. */
export function effectiveRateLimits(op: Operation, defaults: DefaultRateLimits = DEFAULT_RATE_LIMITS): RateLimitRule[] {
  const declared = op.rateLimits ?? [];
  if (declared.some(isCallerKeyed)) return declared;
  const points = op.method === 'GET' ? defaults.readsPerMinute : defaults.writesPerMinute;
  return [...declared, { name: 'default', points, durationSeconds: 60, key: 'user' }];
}

/** Whether a limit is one the operation inherited rather than declared (for the table in docs/limits.md). */
export const isDefaultLimit = (rule: RateLimitRule) => rule.name === 'default';
