import type { DataDirLockMode } from './data-dir-lock.js';

/**
 * What startEmbeddedDatabase (the app's process) and embedded-db-process.ts (the database's process)
 * say to each other over the IPC channel of `child_process.fork`.
 */
export interface EmbeddedDbProcessOptions {
  /** PGlite's data directory. */
  dataDir: string;
  /** Where the unix socket is created when the path fits (else a private directory under os.tmpdir()). */
  socketDir: string;
}

export type ToDatabaseProcess = { type: 'stop' };

export type FromDatabaseProcess =
  | { type: 'ready'; socketDir: string; ms: number; pid: number; lock: DataDirLockMode }
  | { type: 'failed'; message: string }
  | { type: 'stopped' };

/** libpq and `pg` look for the server's socket under this name in the socket directory. */
export const SOCKET_PORT = 5432;
export const socketFileName = `.s.PGSQL.${SOCKET_PORT}`;
