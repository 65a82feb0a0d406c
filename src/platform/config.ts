import { z } from 'zod';
import path from 'node:path';
import { parseTrustedProxies } from '../core/client-address.js';

/**
 * Configuration from the environment (DESIGN.md section 6), validated once at start.
 * A bad value stops the service with a message naming the variable.
 */
const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional());
const optionalText = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());

/** Every setting, read from the environment (each one is documented in docs/configuration.md; a test checks it). */
export const configSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: optionalUrl,
  /** Connections in the pool to a server database (the embedded one always gets 1). */
  DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
  /** Longest wait for a database connection, new or from a full pool, before the request fails with 503 (0: none). */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(0).default(10000),
  /** Server database: PostgreSQL cancels a statement running longer (0: none). Ignored by the embedded database. */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(15000),
  /** Server database: PostgreSQL ends a session left idle inside a transaction this long (0: none). Ignored by the embedded database. */
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).default(30000),
  DATA_DIR: z.string().default('./data'),
  REDIS_URL: optionalUrl,
  JWT_SECRET: optionalText,
  /** Web Push's VAPID key pair (base64url, docs/push.md); unset: generated once and kept in DATA_DIR/vapid-keys.json. */
  VAPID_PUBLIC_KEY: optionalText,
  VAPID_PRIVATE_KEY: optionalText,
  /** Whom a push service may contact about this sender (`mailto:` or `https:`); unset: PUBLIC_BASE_URL when https, else a placeholder. */
  VAPID_SUBJECT: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^(mailto:|https:\/\/)/, 'Must start with mailto: or https://.').optional()),
  /** `true` lets Web Push endpoints be plain http and reach loopback and private addresses: tests and private deployments only. */
  PUSH_ALLOW_PRIVATE_ENDPOINTS: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  ACCESS_TOKEN_LIFETIME_SECONDS: z.coerce.number().int().positive().default(3600),
  REFRESH_TOKEN_LIFETIME_SECONDS: z.coerce.number().int().positive().default(30 * 24 * 3600),
  /** argon2id's memory (KiB) and passes for new password hashes; a hash keeps its own, so changing these never locks anyone out. */
  PASSWORD_HASH_MEMORY_KIB: z.coerce.number().int().min(1024).default(65536),
  PASSWORD_HASH_PASSES: z.coerce.number().int().min(1).default(3),
  PUBLIC_BASE_URL: optionalUrl,
  /** Where the display's QR code leads, `{location_id}` filled in (default: the API's location feed). */
  DISPLAY_FEED_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .refine((v) => v.includes('{location_id}'), 'Must contain {location_id}.')
      .refine((v) => URL.canParse(v.replaceAll('{location_id}', '00000000-0000-4000-8000-000000000000')), 'Must be an absolute URL.')
      .optional(),
  ),
  S3_BUCKET: optionalText,
  S3_ENDPOINT: optionalUrl,
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  S3_PUBLIC_URL: optionalUrl,
  SMTP_URL: optionalText,
  MAIL_FROM: z.string().default('Hyperlocal <no-reply@hyperlocal.local>'),
  ADMIN_EMAIL: z.preprocess((v) => (v === '' ? undefined : v), z.string().email().optional()),
  ADMIN_PASSWORD: optionalText,
  CORS_ORIGINS: z.string().default('*'),
  /** Proxies whose X-Forwarded-For is believed: addresses, CIDR ranges, `loopback`, or `none`. */
  TRUSTED_PROXIES: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .default('loopback')
      .superRefine((value, ctx) => {
        try {
          parseTrustedProxies(value);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
        }
      }),
  ),
  LOG_LEVEL: z.string().default('info'),
  /** `pretty`: human-readable lines; `json`: one JSON object per line. Default: pretty on a terminal, JSON otherwise. */
  LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  /** Serves GET /metrics (Prometheus text) to callers presenting it as a bearer token; unset: no /metrics. */
  METRICS_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16, 'must be at least 16 characters').optional()),
  /** Prefix of rate-limit keys in Redis; tests give each app its own. */
  RATE_LIMIT_PREFIX: z.string().default('rl'),
  /** Prefix of the scheduled jobs' locks in Redis (`<prefix>:<job>`); the nodes of one deployment share it, tests give each run its own. */
  JOB_LOCK_PREFIX: z.string().min(1).default('lock:job'),
  /** `off` disables operation rate limits: for benchmarks and load tests only (DESIGN.md section 6). */
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  /** Operations that declare no limit of their own (per user, per IP for anonymous callers): reads (GET) and writes, per minute. */
  RATE_LIMIT_DEFAULT_READS_PER_MINUTE: z.coerce.number().int().positive().default(600),
  RATE_LIMIT_DEFAULT_WRITES_PER_MINUTE: z.coerce.number().int().positive().default(120),
  /** Socket.IO cross-node adapter with REDIS_URL: `classic` (PUBLISH on one channel) or `sharded` (Redis 7 SPUBLISH, a channel per room). */
  REDIS_ADAPTER: z.enum(['classic', 'sharded']).default('classic'),
  /** Live sockets one user may hold on one node (counted in each node's memory); beyond: connect_error. */
  SOCKET_MAX_CONNECTIONS_PER_USER: z.coerce.number().int().positive().default(20),
  /** Live sockets one client address may hold (anonymous and signed-in alike). */
  SOCKET_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().positive().default(500),
  /** Events one socket may send per second; beyond, an event is answered 429 (and not run). */
  SOCKET_EVENTS_PER_SECOND: z.coerce.number().int().positive().default(20),
  /** Channel subscriptions (`subscribe`) one socket may hold at once (DESIGN.md section 5); one more is acked 429. */
  SOCKET_MAX_SUBSCRIPTIONS: z.coerce.number().int().positive().default(100),
  /** Largest Socket.IO message (maxHttpBufferSize); a larger one closes the connection (Engine.IO's rule). */
  SOCKET_MAX_PAYLOAD_BYTES: z.coerce.number().int().positive().default(1_000_000),
  /** Units of one product that one buyer's pending orders may hold together (DESIGN.md section 8); beyond: 400 on `quantity`. */
  ORDER_MAX_PENDING_UNITS: z.coerce.number().int().positive().default(20),
  /** Distinct reporters with accounts older than 7 days whose open reports hide a post or comment pending review (DESIGN.md section 9); 0: never. */
  MODERATION_AUTO_HIDE_REPORTS: z.coerce.number().int().min(0).default(5),
  /** A rotated refresh token presented again this soon gets the same successor (two tabs refreshing at once). */
  REFRESH_REUSE_GRACE_SECONDS: z.coerce.number().int().min(0).max(300).default(20),
  /** Largest JSON body accepted. */
  JSON_BODY_LIMIT: z.string().default('1mb'),
  /** In-flight requests get this long to finish on SIGTERM. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().positive().default(10000),
  /** An uploaded audio file's tags and duration are read in a worker thread; one not read by then is refused (400). */
  AUDIO_WORK_TIMEOUT_MS: z.coerce.number().int().positive().default(10000),
  /** The outbox (DESIGN.md section 4): every node looks for work committed elsewhere or due later this often. */
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(1000),
  /**
   * Outbox work (webhook deliveries, pushes, digest mails...) running on one node at once, all kinds together; one
   * kind takes at most three quarters (36 of 48: a push flood is bound by its pipeline's depth, not by the CPU).
   */
  OUTBOX_MAX_IN_FLIGHT: z.coerce.number().int().positive().default(48),
  /** Outbox rows given up (no retry left) are kept this many days for the operator, then deleted (daily job). */
  OUTBOX_GIVEN_UP_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
  /** Webhooks (docs/webhooks.md): the key their secrets are sealed with in the database; unset: derived from the JWT signing secret. */
  WEBHOOK_SECRET_KEY: optionalText,
  /** `true` lets webhooks reach loopback and private addresses, and plain http: for tests and local receivers only. */
  WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /** Webhook deliveries done (succeeded or failed) are kept this many days after their last attempt, then deleted (hourly job); pending ones stay. */
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
  /** Push to Android through FCM's HTTP v1 API (docs/push.md): path of the service account's JSON key file (its `project_id`, `client_email`, `private_key`, `token_uri`); unset: FCM devices are refused. */
  FCM_SERVICE_ACCOUNT: optionalText,
  /** FCM's API origin (default https://fcm.googleapis.com): a relay or a test stand-in. */
  FCM_ENDPOINT: optionalUrl,
  /** Push to iOS through APNs (docs/push.md): the `.p8` signing key, its key id, the team id and the app's bundle id (apns-topic); any unset: APNs devices are refused. */
  APNS_KEY_FILE: optionalText,
  APNS_KEY_ID: optionalText,
  APNS_TEAM_ID: optionalText,
  APNS_TOPIC: optionalText,
  /** APNs origin for every device (default: https://api.push.apple.com, or https://api.sandbox.push.apple.com for a sandbox device). */
  APNS_ENDPOINT: optionalUrl,
  /** PEM certificates trusted for APNS_ENDPOINT besides the system's: tests and private relays only. */
  APNS_CA_FILE: optionalText,
  /** `npm start`: an event loop blocked this long is logged and the process exits (code 70) for its supervisor to restart it; 0: no watchdog. */
  WATCHDOG_BLOCKED_MS: z.coerce.number().int().min(0).default(10000),
});

export type Config = z.infer<typeof configSchema> & { dataDir: string };

/** A configuration the service cannot run with; the message names every variable at fault. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof z.infer<typeof configSchema>, string | number>> = {}): Config {
  const parsed = configSchema.safeParse({ ...env, ...overrides });
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  return { ...parsed.data, dataDir: path.resolve(parsed.data.DATA_DIR) };
}
