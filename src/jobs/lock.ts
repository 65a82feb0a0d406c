import crypto from 'node:crypto';
import { platform } from '../platform/index.js';

/**
 * Run `fn` only if no other node is running the same job: a Redis key with a time-to-live, released
 * only by its holder. On a single node (no REDIS_URL) there is nobody to race with.
 */
export async function withJobLock(name: string, fn: () => Promise<void>, ttlSeconds = 300): Promise<boolean> {
  const redis = platform.redis;
  if (!redis) {
    await fn();
    return true;
  }
  const key = `lock:job:${name}`;
  const token = crypto.randomUUID();
  const acquired = await redis.set(key, token, 'EX', ttlSeconds, 'NX');
  if (!acquired) return false;
  try {
    await fn();
    return true;
  } finally {
    await redis.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", 1, key, token);
  }
}
