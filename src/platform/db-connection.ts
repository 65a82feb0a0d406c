import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import * as schema from '../models/index.js';
import type { Logger } from './logger.js';

/**
 * Opening the database: the pool and its Drizzle handle, and the types of both. Below db.ts (transactions, the
 * handle a query uses by default), which reads the open database from `platform`, and below platform/index.ts,
 * which opens it: so the two never import each other.
 */
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
 * - `jit` is off on server connections (a startup parameter too): the service's statements are short, and JIT
 *   compilation costs tens of milliseconds whenever PostgreSQL's cost estimate passes `jit_above_cost`, which a
 *   statement with a costly-looking filter does (search's comment window paid 50 ms of JIT for a 20 ms statement
 *   before its rule was costed right: docs/modules/search.md). PGlite has no JIT.
 */
export function openDatabase(connectionString: string, opts: DatabaseOptions): Database {
  const serverTimeouts = opts.embedded
    ? {}
    : {
        ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
        ...(opts.idleInTransactionTimeoutMs ? { idle_in_transaction_session_timeout: opts.idleInTransactionTimeoutMs } : {}),
        options: '-c jit=off',
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
