import type { RequestHandler } from 'express';
import { sql } from 'drizzle-orm';
import { platform } from '../platform/index.js';

/**
 * `GET /health`: which part of the node works. `status` is `ok` when everything does, `degraded` (still 200)
 * when only Redis is down (the node serves its own sockets and counts rate limits in memory), `unavailable`
 * (503) when the database does not answer. `redis` is `not_configured` without REDIS_URL.
 */
const DATABASE_CHECK_TIMEOUT_MS = 2000;

export const health: RequestHandler = async (_req, res) => {
  const database = await databaseState();
  const redis = !platform.redis ? 'not_configured' : platform.redis.status === 'ready' ? 'ok' : 'unavailable';
  const status = database !== 'ok' ? 'unavailable' : redis === 'unavailable' ? 'degraded' : 'ok';
  res.status(database === 'ok' ? 200 : 503).json({ status, database, redis });
};

async function databaseState(): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      platform.db.execute(sql`select 1`),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('database check timed out')), DATABASE_CHECK_TIMEOUT_MS))),
    ]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}
