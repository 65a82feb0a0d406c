import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import * as schema from '../models/index.js';
import { PendingEvents } from '../core/events.js';
import type { Logger } from './logger.js';

export type Db = NodePgDatabase<typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Queries accept either: a service passes its transaction when it has one. */
export type DbOrTx = Db | Tx;

// COUNT(*) and SUM come back as strings of int8/numeric; counts are cast to int in SQL, money stays a string.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface Database {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * One data-access path for both the server and the embedded database: `pg` over a connection string.
 * The embedded database shares one session between all connections, so it gets a pool of one
 * (code inside a transaction must use the transaction's client, never the pool: see `transaction`).
 */
export function openDatabase(connectionString: string, opts: { poolMax: number; log: Logger }): Database {
  const pool = new pg.Pool({ connectionString, max: opts.poolMax, idleTimeoutMillis: 30000 });
  pool.on('error', (err) => opts.log.error({ err }, 'idle database client failed'));
  const db = drizzle(pool, { schema });
  return { db, pool, close: () => pool.end() };
}

/**
 * Run `fn` in one transaction; domain events it raises are published only after COMMIT.
 * Everything inside must use `tx`: in embedded mode the pool's only connection is held by it.
 */
export async function transaction<T>(db: Db, fn: (tx: Tx, events: PendingEvents) => Promise<T>): Promise<T> {
  const events = new PendingEvents();
  const result = await db.transaction((tx) => fn(tx, events));
  events.flush();
  return result;
}
