import fs from 'node:fs';

/**
 * An exclusive lock on a directory that one process at a time may use (the embedded database's files):
 * a lock file created with O_EXCL that holds the owner's pid. PGlite has no lock of its own, and two
 * processes writing one data dir corrupt it silently, so a second start must fail at once instead.
 *
 * A lock whose pid is no longer alive (the owner was SIGKILLed or the machine lost power) is stale and
 * is taken over. A recycled pid that happens to be alive again makes the lock look held: the message
 * names the lock file so an operator can remove it.
 */
export class DataDirInUseError extends Error {
  constructor(readonly lockPath: string, readonly ownerPid: number) {
    super(
      `${lockPath} is held by process ${ownerPid}: another instance is using this data directory. ` +
        `Stop it (or set another DATA_DIR); if no such process is running, delete the lock file.`,
    );
    this.name = 'DataDirInUseError';
  }
}

/**
 * The lock file of an existing directory: beside it, named after its real path, so that two paths to one
 * directory (a symlink, a relative path) share one lock.
 */
export function lockPathOf(dir: string): string {
  return `${fs.realpathSync(dir)}.lock`;
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else, which still means the lock is held.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(lockPath: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockPath, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Synchronous on purpose: there is nothing to overlap it with, and it keeps the check-and-create atomic. */
export function lockDataDir(lockPath: string, pid = process.pid): DataDirLock {
  // Two attempts: the second follows the removal of a stale lock. If another process took it over in
  // between, its pid is alive and the second attempt reports it.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx', 0o600);
      fs.writeSync(fd, `${pid}\n`);
      fs.closeSync(fd);
      let released = false;
      return {
        path: lockPath,
        release() {
          if (released) return;
          released = true;
          // Only our own lock: never remove one a later owner wrote after a takeover.
          if (readOwner(lockPath) === pid) fs.rmSync(lockPath, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readOwner(lockPath);
      // A lock file being written right now has no pid yet: treat it as held rather than stale.
      if (owner === null) {
        const ageMs = Date.now() - fs.statSync(lockPath).mtimeMs;
        if (ageMs < 5000) throw new DataDirInUseError(lockPath, 0);
      } else if (owner !== pid && owner !== process.ppid && isAlive(owner)) {
        // Not our own pid nor our parent's: in a container pids repeat from one start to the next, so after a
        // crash the new database process (or the app that started it) can carry the dead owner's pid.
        throw new DataDirInUseError(lockPath, owner);
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirInUseError(lockPath, readOwner(lockPath) ?? 0);
}
