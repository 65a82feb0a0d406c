import crypto from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { throttled } from './errors.js';

/**
 * Keys may be derived from client input (a login name, an email) before validation bounds its length:
 * a long one is stored as its hash, so a client cannot make every counter weigh a megabyte.
 */
const storedKey = (key: string) => (key.length <= 200 ? key : `sha256:${crypto.createHash('sha256').update(key).digest('hex')}`);

/**
 * Counters for operation rate limits: in memory on a single node, in Redis when REDIS_URL is set
 * so that every node counts the same requests. While Redis is unreachable each node counts in its own
 * memory instead (the insurance limiter): a Redis blip must not turn login and register into 500s,
 * and must not lift the limits either (a cluster of N nodes allows up to N budgets meanwhile).
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly enabled: boolean;
  private readonly onFallback: (inMemory: boolean) => void;
  /** Counting in memory because Redis is not ready: said once when it starts and once when it ends. */
  private inMemory = false;

  constructor(
    private readonly redis: Redis | null,
    private readonly keyPrefix: string,
    /**
     * enabled: false (RATE_LIMITS=off) counts nothing; for benchmarks and load tests only.
     * onFallback(true) when counting falls back to memory (Redis not ready), onFallback(false) when Redis counts again.
     */
    opts: { enabled?: boolean; onFallback?: (inMemory: boolean) => void } = {},
  ) {
    this.enabled = opts.enabled ?? true;
    this.onFallback = opts.onFallback ?? (() => undefined);
  }

  /** Count one request against `bucket`; throws 429 with Retry-After when the budget is spent. */
  async consume(bucket: string, key: string, points: number, durationSeconds: number): Promise<void> {
    if (!this.enabled) return;
    if (this.redis && (this.redis.status !== 'ready') !== this.inMemory) {
      this.inMemory = !this.inMemory;
      this.onFallback(this.inMemory);
    }
    const limiter = this.limiter(bucket, points, durationSeconds);
    try {
      await limiter.consume(storedKey(key));
    } catch (err) {
      if (err instanceof RateLimiterRes) throw throttled(err.msBeforeNext / 1000);
      throw err;
    }
  }

  /** Forget the count for a key, e.g. after a successful login. */
  async reset(bucket: string, key: string): Promise<void> {
    await this.limiters.get(bucket)?.delete(storedKey(key));
  }

  private limiter(bucket: string, points: number, duration: number): RateLimiterAbstract {
    const id = `${bucket}:${points}:${duration}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const opts = { keyPrefix: `${this.keyPrefix}:${bucket}`, points, duration };
      limiter = this.redis
        ? new RateLimiterRedis({
            ...opts,
            storeClient: this.redis,
            useRedisPackage: false,
            // Not ready (reconnecting): count in memory at once instead of queueing behind the reconnect.
            rejectIfRedisNotReady: true,
            insuranceLimiter: new RateLimiterMemory(opts),
          })
        : new RateLimiterMemory(opts);
      this.limiters.set(id, limiter);
      this.limiters.set(bucket, limiter);
    }
    return limiter;
  }
}
