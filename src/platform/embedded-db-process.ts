// The embedded database's own process, forked by startEmbeddedDatabase (embedded-db.ts): PGlite with
// PostGIS, pg_trgm and unaccent (search's accent folding, migration 0029), served over the PostgreSQL wire protocol on a unix socket.
//
// Why a process of its own: PGlite runs Postgres compiled to WASM synchronously on the JS thread, so in
// the app's process every query blocked every request, and app and database could not use two cores.
// Here it has its own event loop, heap and core; the app reaches it through `pg` as it reaches a server.
//
// Lifetime: it lives exactly as long as the app's process. It stops on the parent's `stop` message, and
// also when the IPC channel closes (the parent exited or was SIGKILLed), so it never lingers. Signals
// sent to the whole process group (Ctrl-C, `kill -- -pgid`) are left to the parent, which still needs
// the database while it drains in-flight requests and then sends `stop`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { lockDataDir, lockPathOf, type DataDirLock } from './data-dir-lock.js';
import { WireProtocolPGlite } from './embedded-db-wire.js';
import { socketFileName, type EmbeddedDbProcessOptions, type FromDatabaseProcess, type ToDatabaseProcess } from './embedded-db-protocol.js';
import { slimPostgis } from './postgis-bundle.js';

// Above 1 so that a new pool can connect while the socket of a just-ended pool is still being torn down
// (the server frees a slot only a tick after the close), and so tests can open several pools in a row.
// It does not make concurrent use safe: every connection shares PGlite's one session (see embedded-db.ts).
const MAX_CONNECTIONS = 16;
// sun_path is 108 bytes on Linux (104 on macOS), including the terminating NUL.
const MAX_SOCKET_PATH = 103;

const send = (msg: FromDatabaseProcess) => new Promise<void>((resolve) => (process.connected ? process.send!(msg, () => resolve()) : resolve()));

let lock: DataDirLock | null = null;
let db: PGlite | null = null;
let server: PGLiteSocketServer | null = null;
let socketPath: string | null = null;
let privateSocketDir: string | null = null;

/** The socket in socketDir when its path fits in sun_path, else in a new 0700 directory under os.tmpdir(). */
function chooseSocketDir(preferred: string): string {
  if (Buffer.byteLength(path.join(preferred, socketFileName)) <= MAX_SOCKET_PATH) return preferred;
  privateSocketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hl-pg-'));
  return privateSocketDir;
}

async function start(opts: EmbeddedDbProcessOptions): Promise<string> {
  fs.mkdirSync(opts.dataDir, { recursive: true });
  lock = lockDataDir(lockPathOf(opts.dataDir));
  // PGlite's file system cannot mount a path through a symlink (Emscripten ENOTDIR): give it the real one.
  // WireProtocolPGlite: PGlite without its premature ReadyForQuery after a failed extended-query message, which
  // desynchronised pg's connection (PGlite issue 958; why and how in embedded-db-wire.ts).
  db = new WireProtocolPGlite({ dataDir: fs.realpathSync(opts.dataDir), extensions: { postgis: slimPostgis(), pg_trgm, unaccent } });
  await db.waitReady;
  // Idempotent: the first start with a new data dir installs PostGIS (the slow part of a cold start).
  await db.exec('CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS pg_trgm;');

  const socketDir = chooseSocketDir(opts.socketDir);
  socketPath = path.join(socketDir, socketFileName);
  // We hold the lock, so a socket file left here is from a process that died without cleaning up.
  fs.rmSync(socketPath, { force: true });
  server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: MAX_CONNECTIONS });
  await server.start();
  // The server is a passwordless superuser: only this user may connect (connecting needs write access).
  fs.chmodSync(socketPath, 0o600);
  return socketDir;
}

let stopping: Promise<void> | null = null;
function stop(exitCode: number): Promise<void> {
  return (stopping ??= (async () => {
    try {
      // Close clients' sockets first so no query reaches PGlite while it shuts down.
      await server?.stop();
      if (db) {
        // A client that disconnected just before (e.g. `await pool.end(); await stop()`) still has a cleanup
        // queued with setImmediate that asks PGlite whether a transaction is open and may send a ROLLBACK.
        // Run against a closed PGlite it throws an uncaught TypeError, and close() waits for no query.
        // So: let queued cleanups run, wait for any query they started, then close.
        await new Promise((resolve) => setImmediate(resolve));
        await db.query('SELECT 1');
        await new Promise((resolve) => setImmediate(resolve));
        // Closing PGlite checkpoints and flushes the data dir, which is what makes the next start warm.
        await db.close();
      }
    } catch (err) {
      console.error('embedded database: error while stopping:', err);
      exitCode = exitCode || 1;
    } finally {
      if (socketPath) fs.rmSync(socketPath, { force: true });
      if (privateSocketDir) fs.rmSync(privateSocketDir, { recursive: true, force: true });
      lock?.release();
    }
    await send({ type: 'stopped' });
    process.exit(exitCode);
  })());
}

process.on('message', (msg: ToDatabaseProcess) => {
  if (msg.type === 'stop') void stop(0);
});
process.on('disconnect', () => void stop(0));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (!process.connected) void stop(0);
  });
}

const options = JSON.parse(process.argv[2] ?? '{}') as EmbeddedDbProcessOptions;
try {
  const socketDir = await start(options);
  // From the process's birth, so node's and tsx's start-up and the imports count too.
  await send({ type: 'ready', socketDir, ms: Math.round(process.uptime() * 1000), pid: process.pid, lock: lock!.mode });
  // The parent may have gone while we were starting.
  if (!process.connected) await stop(0);
} catch (err) {
  // PGlite also throws non-Errors (Emscripten's ErrnoError has no message, only an errno).
  const message = err instanceof Error && err.message ? err.message : `${(err as { name?: string })?.name ?? 'error'} ${JSON.stringify(err)}`;
  await send({ type: 'failed', message });
  await stop(1);
}
