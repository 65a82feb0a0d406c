import { AppError } from './errors.js';

/**
 * Database failures that mean "busy, try again", not "bug": answered 503 in the contract's `{detail}`
 * shape with a Retry-After, so that a client backs off instead of seeing a hang or a bare 500.
 * - no connection within DATABASE_CONNECT_TIMEOUT_MS (pg-pool's own messages: a full pool, or a server
 *   that does not accept the connection in time);
 * - 57014 query_canceled: statement_timeout (DATABASE_STATEMENT_TIMEOUT_MS) ended the statement;
 * - 55P03 lock_not_available: a lock_timeout ran out;
 * - 40P01 deadlock_detected and 40001 serialization_failure: this transaction lost a race that PostgreSQL broke by
 *   ending it and rolling it back (what the operation committed before it stays; operations write in one
 *   transaction); the same request again normally succeeds.
 * Drizzle wraps driver errors, so the whole `cause` chain is inspected.
 */
export const SERVICE_UNAVAILABLE_BODY = { detail: 'Service temporarily unavailable, try again later.' };
/** How long a client should wait before trying again (REST's Retry-After; the socket's `retry_after`). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const POOL_TIMEOUT_MESSAGES = ['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout'];
const TIMEOUT_CODES = new Set(['57014', '55P03', '40P01', '40001']);

export function isDatabaseTimeout(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && TIMEOUT_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && POOL_TIMEOUT_MESSAGES.includes(e.message)) return true;
  }
  return false;
}

/**
 * The database cannot be reached at all (a restart, a network cut): no connection (refused, reset, timed
 * out), a connection that died under a query, or the server saying it is shutting down or starting
 * (57P01-57P03), too many connections (53300) or a connection exception (class 08). The pool drops the dead
 * clients and opens new ones once the server is back, so this passes without a restart of the service.
 */
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '57P01', '57P02', '57P03', '53300']);
const CONNECTION_LOST_MESSAGES = ['Connection terminated unexpectedly', 'Connection terminated', 'Client has encountered a connection error and is not queryable'];

export function isDatabaseConnectionLost(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && (CONNECTION_ERROR_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (typeof e.message === 'string' && CONNECTION_LOST_MESSAGES.includes(e.message)) return true;
    // AggregateError (a refused connection to every address of "localhost") carries its errors in `errors`.
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.some((x) => isDatabaseConnectionLost(x))) return true;
  }
  return false;
}

/** Busy or down: either way the caller should come back later (503 with Retry-After), not see a 500. */
export const isDatabaseUnavailable = (err: unknown) => isDatabaseTimeout(err) || isDatabaseConnectionLost(err);

export const serviceUnavailable = () => new AppError(503, { ...SERVICE_UNAVAILABLE_BODY }, { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });
