import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { isHolderAlive, processIdentity, type ProcessIdentity } from './process-identity.js';

/**
 * An exclusive lock on a directory that one process at a time may use (the embedded database's files).
 * PGlite has no lock of its own, and two processes writing one data dir corrupt it silently, so a second start
 * must fail at once instead. A lock must also die with its holder: after `kill -9` of the whole service a
 * supervisor restarts it within a second, when the killed database process may still be an unreaped zombie, and
 * its pid may later be reused by any unrelated process.
 *
 * Two ways, the first that works here:
 * - `kernel`: flock(2) on the lock file, held on an open file descriptor of the owning process. The kernel
 *   releases it when that process exits however it exits (SIGKILL included, before it is reaped), so no pid is
 *   ever compared. Node has no flock call and we want no native addon: `flock(1)` (util-linux; busybox has it
 *   too) is run once on the descriptor we opened (the `exec 9>file; flock -n 9` idiom). A flock belongs to the
 *   open file description, which our descriptor shares with the child's, so it stays held after `flock` exits,
 *   until this process closes the descriptor or dies. It also works between containers that share the volume.
 * - `identity`: where `flock` is missing (macOS, a minimal image) or refuses the file system: an O_EXCL lock file
 *   naming its holder by pid, process start time and boot id (process-identity.ts). A zombie, a dead pid, or a
 *   pid now carried by another process is not a holder. Without /proc only the pid's liveness is known.
 *
 * Either way the file records the holder (JSON), which the refusal names.
 */
export class DataDirInUseError extends Error {
  constructor(readonly lockPath: string, readonly ownerPid: number) {
    super(`${lockPath} is held by process ${ownerPid}: another instance is using this data directory. Stop it (or set another DATA_DIR).`);
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

export type DataDirLockMode = 'kernel' | 'identity';

export interface DataDirLock {
  readonly path: string;
  /** How the lock is held (see above); logged by the database process at start. */
  readonly mode: DataDirLockMode;
  release(): void;
}

export interface LockOptions {
  /** `false`: skip flock(1) and use the identity lock (tests of that path; also what a host without it gets). */
  kernelLock?: boolean;
}

/** Synchronous on purpose: there is nothing to overlap it with, and it keeps each check-and-take atomic. */
export function lockDataDir(lockPath: string, options: LockOptions = {}): DataDirLock {
  const self = processIdentity(process.pid);
  if (options.kernelLock !== false) {
    const lock = takeKernelLock(lockPath, self);
    if (lock) return lock;
  }
  return takeIdentityLock(lockPath, self);
}

/** What a lock file says about its holder: JSON written by this module, or a bare pid from older versions. */
export function readHolder(lockPath: string): ProcessIdentity | null {
  let text: string;
  try {
    text = fs.readFileSync(lockPath, 'utf8').trim();
  } catch {
    return null;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ProcessIdentity> | number;
    if (typeof parsed === 'number') return Number.isInteger(parsed) && parsed > 0 ? { pid: parsed, startTime: null, bootId: null } : null;
    if (!Number.isInteger(parsed.pid) || parsed.pid! <= 0) return null;
    return { pid: parsed.pid!, startTime: parsed.startTime ?? null, bootId: parsed.bootId ?? null };
  } catch {
    return null;
  }
}

const holderText = (self: ProcessIdentity) => `${JSON.stringify(self)}\n`;

// ---- kernel: flock(2) through flock(1) ----

type FlockResult = 'locked' | 'held' | 'unavailable';

/** flock(1) on our descriptor, passed to it as its fd 3. `unavailable`: no flock(1), or it failed otherwise. */
function flockDescriptor(fd: number): FlockResult {
  const run = spawnSync('flock', ['-x', '-n', '3'], { stdio: ['ignore', 'ignore', 'pipe', fd], timeout: 10_000 });
  if (run.error) return 'unavailable';
  if (run.status === 0) return 'locked';
  // With -n, util-linux and busybox both exit 1 without a word when the lock is taken; anything else is an error
  // (e.g. a file system without flock support), for which the identity lock is the way left.
  if (run.status === 1 && run.stderr.length === 0) return 'held';
  return 'unavailable';
}

/** Whether the descriptor is still the file at `lockPath` (a releasing owner may have removed it meanwhile). */
function isCurrentFile(fd: number, lockPath: string): boolean {
  try {
    const open = fs.fstatSync(fd);
    const named = fs.statSync(lockPath);
    return open.ino === named.ino && open.dev === named.dev;
  } catch {
    return false;
  }
}

/**
 * A killed holder keeps the lock until its last thread has exited and its descriptors are closed, a moment after
 * the signal (longer for a large process): a start that races it waits this long before it reports the lock held.
 */
const DYING_HOLDER_GRACE_MS = 1000;
const RETRY_MS = 50;

/** Blocks the thread: lockDataDir is synchronous, and at start there is nothing else for it to do. */
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function flockWithGrace(fd: number): FlockResult {
  const deadline = Date.now() + DYING_HOLDER_GRACE_MS;
  let result = flockDescriptor(fd);
  while (result === 'held' && Date.now() < deadline) {
    sleepSync(RETRY_MS);
    result = flockDescriptor(fd);
  }
  return result;
}

function takeKernelLock(lockPath: string, self: ProcessIdentity): DataDirLock | null {
  // A few attempts: each retry follows an owner's release that removed the file we had opened.
  for (let attempt = 0; attempt < 5; attempt++) {
    const fd = fs.openSync(lockPath, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
    const result = flockWithGrace(fd);
    if (result === 'unavailable') {
      fs.closeSync(fd);
      return null;
    }
    if (result === 'held') {
      fs.closeSync(fd);
      throw new DataDirInUseError(lockPath, readHolder(lockPath)?.pid ?? 0);
    }
    // We locked an inode that an owner unlinked on release after our open: a later opener creates a new file
    // and locks that one, so ours locks nothing. Try again on the file that is there now.
    if (!isCurrentFile(fd, lockPath)) {
      fs.closeSync(fd);
      continue;
    }
    fs.ftruncateSync(fd, 0);
    fs.writeSync(fd, holderText(self), 0);
    let released = false;
    return {
      path: lockPath,
      mode: 'kernel',
      release() {
        if (released) return;
        released = true;
        // Remove the file while still holding the lock, then let go of it (see isCurrentFile).
        if (isCurrentFile(fd, lockPath)) fs.rmSync(lockPath, { force: true });
        fs.closeSync(fd);
      },
    };
  }
  throw new DataDirInUseError(lockPath, readHolder(lockPath)?.pid ?? 0);
}

// ---- identity: O_EXCL file naming its holder ----

/** A lock file younger than this and still empty is being written by its new holder, not abandoned. */
const BEING_WRITTEN_MS = 5000;

function takeIdentityLock(lockPath: string, self: ProcessIdentity): DataDirLock {
  // Two attempts: the second follows the removal of a stale lock. If another process took it over in between,
  // it is alive and the second attempt reports it.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx', 0o600);
      fs.writeSync(fd, holderText(self));
      fs.closeSync(fd);
      let released = false;
      return {
        path: lockPath,
        mode: 'identity',
        release() {
          if (released) return;
          released = true;
          // Only our own lock: never remove one a later owner wrote after a takeover.
          if (readHolder(lockPath)?.pid === self.pid) fs.rmSync(lockPath, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(lockPath);
      if (holder === null) {
        const ageMs = Date.now() - fs.statSync(lockPath).mtimeMs;
        if (ageMs < BEING_WRITTEN_MS) throw new DataDirInUseError(lockPath, 0);
      } else if (isHolderAlive(holder, self)) {
        throw new DataDirInUseError(lockPath, holder.pid);
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirInUseError(lockPath, readHolder(lockPath)?.pid ?? 0);
}
