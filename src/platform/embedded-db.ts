// Embedded PostgreSQL for when DATABASE_URL is unset: PGlite (Postgres compiled to WASM) with PostGIS and
// pg_trgm, run in a child process of its own (embedded-db-process.ts) and served over the wire protocol on
// a unix socket, so the app reaches it through `pg` exactly as it reaches a real server (one data-access
// code path, see DESIGN.md 2.2) and its queries no longer block the app's event loop.
//
// What the pool and migrations must respect (PGlite is one single-user backend):
// - All socket connections share one session: SET, temp tables, advisory locks and named prepared statements
//   are common to all of them (a second connection preparing the same name gets `prepared statement "q1"
//   already exists`).
// - While one connection is inside a transaction, every other connection's queries wait until it ends.
//   More pool connections therefore buy no parallelism, only shared-state surprises and deadlocks (code in a
//   transaction that queries through another client waits forever). Hence the pool in embedded mode has
//   `max: 1`, and code inside a transaction uses only the transaction's client.
// - PGlite has no lock of its own on its data dir; the database process takes `<dataDir>.lock` (dataDir's real
//   path) so a second process on the same dir is refused at once, and the lock dies with the process (a kernel
//   flock, else a holder named by pid and start time: data-dir-lock.ts).
// - The socket is `.s.PGSQL.5432` in the data dir's parent (DATA_DIR for `npm start`), mode 0600; when that
//   path is too long for a unix socket (108 bytes) it goes to a private 0700 directory under os.tmpdir().
import fs from 'node:fs';
import path from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EmbeddedDbProcessOptions, FromDatabaseProcess, ToDatabaseProcess } from './embedded-db-protocol.js';

export interface EmbeddedDbLogger {
  info(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

export interface EmbeddedDatabase {
  connectionString: string;
  /** The database process, for measuring it (memory) or checking it is gone. */
  pid: number;
  stop(): Promise<void>;
}

/** How long a stopping database may take to checkpoint and close before it is killed. */
const STOP_TIMEOUT_MS = 30_000;

const PROCESS_ENTRY = fileURLToPath(new URL('./embedded-db-process.ts', import.meta.url));
/** The bench pack (scripts/bench-pack.mjs) bundles the child as plain JavaScript beside the bundle that forks it. */
const PACKED_ENTRY = fileURLToPath(new URL('./embedded-db-process.mjs', import.meta.url));

/** The child runs TypeScript through tsx whatever runs the parent (tsx for `npm start`, jest's swc in tests). */
function tsxLoader(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
}

export async function startEmbeddedDatabase(opts: { dataDir: string }, logger?: EmbeddedDbLogger): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(opts.dataDir);
  const options: EmbeddedDbProcessOptions = { dataDir, socketDir: path.dirname(dataDir) };
  const packed = fs.existsSync(PACKED_ENTRY);
  const child = fork(packed ? PACKED_ENTRY : PROCESS_ENTRY, [JSON.stringify(options)], {
    execArgv: packed ? [] : ['--import', tsxLoader()],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });

  const ready = await new Promise<Extract<FromDatabaseProcess, { type: 'ready' }>>((resolve, reject) => {
    const onMessage = (msg: FromDatabaseProcess) => {
      if (msg.type === 'ready') settle(() => resolve(msg));
      else if (msg.type === 'failed') settle(() => reject(new Error(`embedded database failed to start in ${dataDir}: ${msg.message}`)));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      settle(() => reject(new Error(`embedded database process exited (${signal ?? `code ${code}`}) before it was ready (${dataDir})`)));
    const onError = (err: Error) => settle(() => reject(new Error(`embedded database process could not be started: ${err.message}`)));
    let settled = false;
    function settle(fn: () => void) {
      if (settled) return;
      settled = true;
      child.off('message', onMessage).off('exit', onExit).off('error', onError);
      fn();
    }
    child.on('message', onMessage).on('exit', onExit).on('error', onError);
  });

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let stopping: Promise<void> | null = null;
  child.once('exit', (code, signal) => {
    if (!stopping) logger?.error({ pid: child.pid, code, signal }, 'embedded database process exited unexpectedly');
  });
  // The channel must not keep the app alive on its own: when the app is done, the database follows it.
  unrefChannel(child);

  const connectionString = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(ready.socketDir)}`;
  logger?.info({ dataDir, socketDir: ready.socketDir, pid: ready.pid, ms: ready.ms, lock: ready.lock }, 'embedded database ready');

  return {
    connectionString,
    pid: ready.pid,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.ref();
        const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        if (child.connected) child.send({ type: 'stop' } satisfies ToDatabaseProcess);
        await exited;
        clearTimeout(killer);
        logger?.info({ dataDir }, 'embedded database stopped');
      })()),
  };
}

function unrefChannel(child: ChildProcess): void {
  child.unref();
  (child.channel as { unref?: () => void } | undefined)?.unref?.();
}
