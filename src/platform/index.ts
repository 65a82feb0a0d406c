import path from 'node:path';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { detectNamedStatements, openDatabase, type Database, type Db } from './db-connection.js';
import { migrate } from './migrate.js';
import { createStorage, type Storage } from './storage.js';
import { createMailer, type Mailer } from './mail.js';
import { resolveJwtSecret, signingKey } from './secrets.js';
import type { KeyObject } from 'node:crypto';
import { startEmbeddedDatabase, type EmbeddedDatabase } from './embedded-db.js';
import { RateLimits } from '../core/rate-limit.js';
import { Metrics } from './metrics.js';

/**
 * The connections to the outside world, opened once at start and shared by every module.
 * Services read `platform.db`, `platform.storage`, ... at call time.
 */
export interface Platform {
  config: Config;
  log: Logger;
  db: Db;
  database: Database;
  redis: Redis | null;
  storage: Storage;
  mailer: Mailer;
  jwtSecret: string;
  /** jwtSecret as a KeyObject, made once: jsonwebtoken re-parses a string secret on every call. */
  jwtKey: KeyObject;
  rateLimits: RateLimits;
  /** Counters and gauges served at GET /metrics when METRICS_TOKEN is set. */
  metrics: Metrics;
  embedded: { stop(): Promise<void> } | null;
}

export const platform = {} as Platform;

export interface PlatformOptions {
  /** Migrations to apply instead of src/models/migrations (tests of a failing migration). */
  migrationsDir?: string;
  /** The embedded database, already starting (main.ts starts it before loading the app's modules). */
  embedded?: Promise<EmbeddedDatabase>;
}

export async function startPlatform(config: Config, log: Logger = createLogger(config.LOG_LEVEL, config.LOG_FORMAT), opts: PlatformOptions = {}): Promise<Platform> {
  let connectionString = config.DATABASE_URL;
  let embedded: Platform['embedded'] = null;
  if (!connectionString) {
    const started = await (opts.embedded ?? startEmbeddedDatabase({ dataDir: path.join(config.dataDir, 'pglite') }, log));
    connectionString = started.connectionString;
    embedded = started;
    log.info('embedded PostgreSQL (PGlite + PostGIS) started; set DATABASE_URL to use a server');
  }
  const database = openDatabase(connectionString, {
    poolMax: embedded ? 1 : config.DATABASE_POOL_MAX,
    log,
    embedded: embedded !== null,
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  });
  try {
    await migrate(database.pool, log, opts.migrationsDir);
    database.namedStatements = !embedded && (await detectNamedStatements(database.pool));
  } catch (err) {
    // A failed start must not leave the database process running (it holds DATA_DIR's lock).
    await database.close().catch(() => undefined);
    await embedded?.stop();
    throw err;
  }

  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 3, lazyConnect: false }) : null;
  redis?.on('error', (err) => log.error({ err }, 'redis error'));
  // Serve only once Redis answers: until then rate limits count in this node's memory (the insurance limiter),
  // and a budget split between memory and Redis would let a client past it. A Redis that stays down does not
  // stop the start; the insurance limiter covers it and the service says so.
  const ready = redis ? await redisReady(redis, REDIS_READY_WAIT_MS) : false;
  if (redis && !ready) log.warn('Redis is not ready: rate limits count in memory until it is');
  if (redis && ready && config.REDIS_ADAPTER === 'sharded') await requireShardedPubSub(redis, database, embedded);

  const metrics = new Metrics();
  metrics.watchPool(database.pool);
  const jwtSecret = resolveJwtSecret(config.JWT_SECRET, config.dataDir, log);
  Object.assign(platform, {
    config,
    log,
    db: database.db,
    database,
    redis,
    storage: createStorage(config),
    mailer: createMailer(config, log),
    jwtSecret,
    jwtKey: signingKey(jwtSecret),
    rateLimits: new RateLimits(redis, config.RATE_LIMIT_PREFIX, {
      enabled: config.RATE_LIMITS === 'on',
      onFallback: (inMemory) =>
        inMemory
          ? log.warn('Redis is unavailable: rate limits count in this node\'s memory until it is back')
          : log.info('Redis is back: rate limits count in Redis again'),
    }),
    metrics,
    embedded,
  } satisfies Platform);
  if (!config.PUBLIC_BASE_URL && config.NODE_ENV === 'production') {
    log.warn('PUBLIC_BASE_URL is not set: media and pagination URLs follow each request\'s Host header');
  }
  return platform;
}

export async function stopPlatform(): Promise<void> {
  platform.mailer?.close();
  await platform.database?.close().catch(() => undefined);
  await platform.embedded?.stop();
  if (platform.redis) await platform.redis.quit().catch(() => undefined);
}

const REDIS_READY_WAIT_MS = 10_000;

function redisReady(redis: Redis, waitMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), waitMs);
    const onReady = () => done(true);
    function done(ready: boolean) {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    }
    redis.once('ready', onReady);
  });
}

/**
 * REDIS_ADAPTER=sharded needs sharded pub/sub (SSUBSCRIBE/SPUBLISH), which Redis has from 7.0 on: an older
 * server would accept the connection and then refuse every subscription, so the start is refused instead.
 */
async function requireShardedPubSub(redis: Redis, database: Database, embedded: Platform['embedded']): Promise<void> {
  const info = await redis.info('server');
  const version = /redis_version:(\d+)\.(\d+)/.exec(info);
  if (version && Number(version[1]) >= 7) return;
  await redis.quit().catch(() => undefined);
  await database.close().catch(() => undefined);
  await embedded?.stop();
  throw new Error(`REDIS_ADAPTER=sharded needs Redis 7 or later (sharded pub/sub, SSUBSCRIBE); this Redis is ${version ? `${version[1]}.${version[2]}` : 'of an unknown version'}`);
}
