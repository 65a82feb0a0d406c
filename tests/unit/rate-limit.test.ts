import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { AppError, throttled } from '../../src/core/errors.js';
import { RateLimits } from '../../src/core/rate-limit.js';
import { describeWithRedis } from '../helpers/test-app.js';

describe('throttled', () => {
  test('when built, then 429 with the contract text and a Retry-After header in whole seconds', () => {
    const err = throttled(41.2);
    expect(err).toBeInstanceOf(AppError);
    expect(err.status).toBe(429);
    expect(err.body).toEqual({ detail: 'Request was throttled. Expected available in 42 seconds.' });
    expect(err.headers).toEqual({ 'Retry-After': '42' });
  });

  test('when less than a second remains, then it says 1 second', () => {
    expect(throttled(0.2).body).toEqual({ detail: 'Request was throttled. Expected available in 1 second.' });
    expect(throttled(0.2).headers).toEqual({ 'Retry-After': '1' });
  });
});

describe('RateLimits in memory', () => {
  const consume = (limits: RateLimits, key = 'k') => limits.consume('op:ip', key, 2, 60);

  test('when the budget is spent, then the next request is 429 with Retry-After', async () => {
    const limits = new RateLimits(null, 'unit');
    await consume(limits);
    await consume(limits);
    const err = await consume(limits).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 429, body: { detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds?\.$/) } });
    const retryAfter = Number((err as AppError).headers['Retry-After']);
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  test('when keys differ, then each has its own budget', async () => {
    const limits = new RateLimits(null, 'unit');
    await consume(limits, 'a');
    await consume(limits, 'a');
    await expect(consume(limits, 'b')).resolves.toBeUndefined();
    await expect(consume(limits, 'a')).rejects.toMatchObject({ status: 429 });
  });

  test('when a key is reset, then its budget is whole again', async () => {
    const limits = new RateLimits(null, 'unit');
    await consume(limits);
    await consume(limits);
    await limits.reset('op:ip', 'k');
    await expect(consume(limits)).resolves.toBeUndefined();
  });
});

describeWithRedis('RateLimits in Redis', () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis(process.env.REDIS_URL!);
    // Until the client is ready the limits count in memory (the insurance limiter), not in Redis.
    await redis.ping();
  });
  afterAll(async () => {
    await redis.quit();
  });

  test('when a client sends a huge identifier (a login name of a megabyte), then the stored key stays short and keeps its own budget', async () => {
    const prefix = `rl-unit-${crypto.randomUUID()}`;
    const limits = new RateLimits(redis, prefix);
    const huge = 'x'.repeat(1_000_000);
    await limits.consume('op:account', `name:${huge}a`, 1, 60);
    await expect(limits.consume('op:account', `name:${huge}b`, 1, 60)).resolves.toBeUndefined();
    await expect(limits.consume('op:account', `name:${huge}a`, 1, 60)).rejects.toMatchObject({ status: 429 });
    const keys = await redis.keys(`${prefix}*`);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key.length).toBeLessThan(300);
    await redis.del(...keys);
  });
});

describe('RateLimits when Redis is unreachable', () => {
  // A real client to a port nothing listens on: every command fails, as in a Redis outage.
  let dead: Redis;
  beforeAll(() => {
    dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    dead.on('error', () => undefined);
  });
  afterAll(() => {
    dead.disconnect();
  });

  test('when a request is counted, then it is counted in memory instead of failing', async () => {
    const limits = new RateLimits(dead, `rl-unit-${crypto.randomUUID()}`);
    await expect(limits.consume('op:ip', 'k', 2, 60)).resolves.toBeUndefined();
    await expect(limits.consume('op:ip', 'k', 2, 60)).resolves.toBeUndefined();
    // The limit still holds during the outage.
    await expect(limits.consume('op:ip', 'k', 2, 60)).rejects.toMatchObject({ status: 429 });
    await expect(limits.reset('op:ip', 'k')).resolves.toBeUndefined();
  });
});

describe('RateLimits switched off (RATE_LIMITS=off)', () => {
  test('when far more requests than the budget arrive, then none is refused', async () => {
    const limits = new RateLimits(null, 'unit', { enabled: false });
    for (let i = 0; i < 5; i++) await expect(limits.consume('op:ip', 'k', 1, 60)).resolves.toBeUndefined();
  });
});
