import crypto from 'node:crypto';
import { platform } from '../platform/index.js';

/**
 * Run `fn` only if no other node is running the same job: a Redis key with a time-to-live, released only by
 * its holder. The holder extends the key while the job runs (every third of the TTL), so a long job keeps
 * its lock however long it takes, and a node that dies mid-run frees it within one TTL. On a single node
 * (no REDIS_URL) there is nobody to race with.
 */
export interface JobLockOptions {
  ttlSeconds?: number;
}

const EXTEND = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

export const jobLockKey = (name: string) => `${platform.config.JOB_LOCK_PREFIX}:${name}`;

export async function withJobLock(name: string, fn: () => Promise<unknown>, opts: JobLockOptions = {}): Promise<boolean> {
  const redis = platform.redis;
  if (!redis) {
    await fn();
    return true;
  }
  const ttlMs = (opts.ttlSeconds ?? 60) * 1000;
  const key = jobLockKey(name);
  const token = crypto.randomUUID();
  const acquired = await redis.set(key, token, 'PX', ttlMs, 'NX');
  if (!acquired) return false;
  const heartbeat = setInterval(() => {
    redis.eval(EXTEND, 1, key, token, String(ttlMs)).then(
      (extended) => {
        if (!extended) platform.log.warn({ job: name }, 'a job lost its lock while running');
      },
      (err) => platform.log.warn({ err, job: name }, 'could not extend a job lock'),
    );
  }, Math.max(10, Math.floor(ttlMs / 3)));
  heartbeat.unref();
  try {
    await fn();
    return true;
  } finally {
    clearInterval(heartbeat);
    await redis.eval(RELEASE, 1, key, token).catch((err) => platform.log.warn({ err, job: name }, 'could not release a job lock'));
  }
}
