import type { RateLimitRule } from '../../core/operation.js';

/** Public reads are generous per address; writes are counted per user. */
export const READS_PER_IP: RateLimitRule[] = [{ name: 'ip', key: 'ip', points: 600, durationSeconds: 60 }];
export const perUser = (points: number, durationSeconds: number): RateLimitRule[] => [{ name: 'user', key: 'user', points, durationSeconds }];
