import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import * as schema from '../models/index.js';
import { domainEvents, PendingEvents, type DomainEventMap, type DomainEventName } from '../core/events.js';
import type { Logger } from './logger.js';
import { platform } from './index.js';

export type Db = NodePgDatabase<typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Queries accept either: a service passes its transaction when it has one. */
export type DbOrTx = Db | Tx;

// COUNT(*) and SUM come back as strings of int8/numeric; counts are cast to int in SQL, money stays a string.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface Database {
  db: Db;
  pool: pg.Pool;
  /**
   * Whether named prepared statements may be used: only on a PostgreSQL server, where each connection is a session
   * of its own. PGlite serves every connection from one shared session, so a name prepared through one connection
   * "already exists" for the next (pg tracks prepared names per connection). Decided from the database itself by
   * `detectNamedStatements`, since a PGlite may also be reached through a URL (the test run's shared database).
   */
  namedStatements: boolean;
  close(): Promise<void>;
}

/** True unless the database is PGlite (see Database.namedStatements). */
export async function detectNamedStatements(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ version: string }>('SELECT version() AS version');
  return !/PGlite|emscripten/i.test(rows[0]?.version ?? '');
}

export interface DatabaseOptions {
  poolMax: number;
  log: Logger;
  /** The embedded PGlite: one shared session that implements no server-side timeout (see below). */
  embedded?: boolean;
  /** Longest wait for a connection, new or from the pool (a full pool queues callers). 0: no limit. */
  connectTimeoutMs?: number;
  /** Server only: a statement running longer is cancelled by PostgreSQL (error 57014). 0: no limit. */
  statementTimeoutMs?: number;
  /** Server only: a session idle inside an open transaction this long is ended by PostgreSQL. 0: no limit. */
  idleInTransactionTimeoutMs?: number;
}

/**
 * One data-access path for both the server and the embedded database: `pg` over a connection string.
 * The embedded database shares one session between all connections, so it gets a pool of one
 * (code inside a transaction must use the transaction's client, never the pool: see `transaction`).
 *
 * Timeouts, so that nothing waits forever:
 * - `connectTimeoutMs` is client-side (pg-pool) and applies to both databases. It is what turns the classic
 *   embedded hang (a query through the pool while the pool's only connection is held by a transaction)
 *   into an error, and bounds the queue for a pool client on a busy server.
 * - `statement_timeout` and `idle_in_transaction_session_timeout` are sent as startup parameters of each
 *   server connection. They are NOT set on the embedded database: PGlite ignores startup parameters,
 *   runs in WebAssembly without the timer signals the timeouts rely on (measured: `pg_sleep(2)` with a
 *   500 ms statement_timeout set by SET runs its full 2 s), and its one session is shared by every
 *   connection, so a SET would leak across them and ending "the idle session" would end the database's.
 */
export function openDatabase(connectionString: string, opts: DatabaseOptions): Database {
  const serverTimeouts = opts.embedded
    ? {}
    : {
        ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
        ...(opts.idleInTransactionTimeoutMs ? { idle_in_transaction_session_timeout: opts.idleInTransactionTimeoutMs } : {}),
      };
  const pool = new pg.Pool({
    connectionString,
    max: opts.poolMax,
    idleTimeoutMillis: 30000,
    ...(opts.connectTimeoutMs ? { connectionTimeoutMillis: opts.connectTimeoutMs } : {}),
    ...serverTimeouts,
  });
  pool.on('error', (err) => opts.log.error({ err }, 'idle database client failed'));
  const db = drizzle(pool, { schema });
  // Off until detectNamedStatements says the database is a server (startPlatform asks once, after migrating).
  return { db, pool, namedStatements: false, close: () => pool.end() };
}

/** The transaction that the code running now is part of, and the events it will publish after COMMIT. */
interface TransactionScope {
  tx: Tx;
  events: PendingEvents;
  /** False once the transaction has ended: a promise started inside it and still running must not use it. */
  open: boolean;
}

const scope = new AsyncLocalStorage<TransactionScope>();

/**
 * The database handle queries should use by default: the current transaction when the caller runs inside
 * `transaction()`, the pool otherwise. Query helpers take `db: DbOrTx = currentDb()`, so a helper called
 * inside a transaction without its `tx` still reads the transaction's own (uncommitted) writes, and in
 * embedded mode does not wait forever for the pool's only connection, which the transaction holds.
 */
export function currentDb(): DbOrTx {
  const current = scope.getStore();
  return current?.open ? current.tx : platform.db;
}

/**
 * Run `fn` in one transaction; domain events it raises are published only after COMMIT, never on rollback.
 * The transaction and its pending events are carried in AsyncLocalStorage (see `currentDb`).
 *
 * Nested calls do not open a second connection (in embedded mode that would wait forever). A
 * `transaction()` called inside another runs in a SAVEPOINT of the outer transaction: its writes commit
 * with the outer COMMIT, and its events join the outer pending events when it succeeds and are published
 * once, after the outermost COMMIT. When it throws, its writes are rolled back to the savepoint and its
 * events dropped, and the outer transaction may catch the error and carry on. `db` is then ignored.
 */
export async function transaction<T>(db: Db, fn: (tx: Tx, events: PendingEvents) => Promise<T>): Promise<T> {
  const outer = scope.getStore();
  if (outer?.open) {
    const events = new PendingEvents();
    const result = await outer.tx.transaction((savepoint) => within({ tx: savepoint, events, open: true }, fn));
    outer.events.adopt(events);
    return result;
  }
  const events = new PendingEvents();
  const result = await db.transaction((tx) => within({ tx, events, open: true }, fn));
  events.flush();
  return result;
}

/**
 * Publish a domain event once what it reports is committed: with the current transaction's events when the
 * code runs inside one, at once when it runs outside (the write was one statement, committed on its own).
 */
export function publishAfterCommit<K extends DomainEventName>(name: K, payload: DomainEventMap[K]): void {
  const current = scope.getStore();
  if (current?.open) current.events.add(name, payload);
  else domainEvents.publish(name, payload);
}

async function within<T>(current: TransactionScope, fn: (tx: Tx, events: PendingEvents) => Promise<T>): Promise<T> {
  try {
    return await scope.run(current, () => fn(current.tx, current.events));
  } finally {
    current.open = false;
  }
}
