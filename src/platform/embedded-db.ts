// Embedded PostgreSQL for when DATABASE_URL is unset: PGlite (Postgres compiled to WASM) with PostGIS and
// pg_trgm, served over the wire protocol on a local TCP port so the app reaches it through `pg` exactly as
// it reaches a real server (one data-access code path, see DESIGN.md 2.2).
//
// What the pool and migrations must respect (PGlite is one single-user backend):
// - All socket connections share one session: SET, temp tables, advisory locks and named prepared statements
//   are common to all of them (a second connection preparing the same name gets `prepared statement "q1"
//   already exists`).
// - While one connection is inside a transaction, every other connection's queries wait until it ends.
//   More pool connections therefore buy no parallelism, only shared-state surprises and deadlocks (code in a
//   transaction that queries through another client waits forever). Hence the pool in embedded mode has
//   `max: 1`, and code inside a transaction uses only the transaction's client.
// - No lock guards the data dir: two processes can open the same one at once, so never do that.
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { postgis } from '@electric-sql/pglite-postgis';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedDbLogger {
  info(obj: object | string, msg?: string): void;
}

export interface EmbeddedDatabase {
  connectionString: string;
  stop(): Promise<void>;
}

// Above 1 so that a new pool can connect while the socket of a just-ended pool is still being torn down
// (the server frees a slot only a tick after the close), and so tests can open several pools in a row.
// It does not make concurrent use safe: see the note at the top.
const MAX_CONNECTIONS = 16;

export async function startEmbeddedDatabase(
  opts: { dataDir: string; host?: string; port?: number },
  logger?: EmbeddedDbLogger,
): Promise<EmbeddedDatabase> {
  const startedAt = Date.now();
  await mkdir(opts.dataDir, { recursive: true });

  const db = await PGlite.create({ dataDir: opts.dataDir, extensions: { postgis, pg_trgm } });
  // Idempotent: the first start with a new data dir installs PostGIS (the slow part of a cold start).
  await db.exec('CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS pg_trgm;');

  const host = opts.host ?? '127.0.0.1';
  // Port 0 lets the OS pick a free port; the server reports the one it got.
  const server = new PGLiteSocketServer({ db, host, port: opts.port ?? 0, maxConnections: MAX_CONNECTIONS });
  try {
    await server.start();
  } catch (err) {
    await db.close();
    throw err;
  }
  const port = Number(server.getServerConn().split(':').pop());
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const connectionString = `postgres://postgres@${urlHost}:${port}/postgres`;
  logger?.info({ dataDir: opts.dataDir, port, ms: Date.now() - startedAt }, 'embedded database ready');

  let stopped = false;
  return {
    connectionString,
    async stop() {
      if (stopped) return;
      stopped = true;
      // Close clients' sockets first so no query reaches PGlite while it shuts down.
      await server.stop();
      // A client that disconnected just before stop() (e.g. `await pool.end(); await stop()`) still has a
      // cleanup queued with setImmediate that asks PGlite whether a transaction is open and may send a
      // ROLLBACK. Run against a closed PGlite it throws an uncaught "Cannot read properties of undefined
      // (reading '_IsTransactionBlock')" and kills the process, and PGlite's close() waits for no query.
      // So: let queued cleanups run, wait for any query they started, then close.
      await new Promise((resolve) => setImmediate(resolve));
      await db.query('SELECT 1');
      await new Promise((resolve) => setImmediate(resolve));
      // Closing PGlite checkpoints and flushes the data dir, which is what makes the next start warm.
      await db.close();
      logger?.info({ dataDir: opts.dataDir }, 'embedded database stopped');
    },
  };
}
