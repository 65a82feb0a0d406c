import fs from 'node:fs';

/**
 * A process named by more than its pid, for the lock files that record a holder (data-dir-lock.ts): pids are
 * reused (they wrap at 32,768 on many hosts, and a restarted container counts from 1 again), and a killed
 * process keeps its pid as a zombie until its parent reaps it. On Linux the kernel gives each process a start
 * time (clock ticks since boot, /proc/<pid>/stat field 22) and each boot an id; together with the pid they
 * name one process for good. Elsewhere both are null and only the pid is known.
 */
export interface ProcessIdentity {
  pid: number;
  startTime: string | null;
  bootId: string | null;
}

interface ProcStat {
  /** Field 3: R, S, D, Z (zombie), X (dead), ... */
  state: string;
  /** Field 22. */
  startTime: string;
}

/** /proc/<pid>/stat, or null when there is no such process (or no /proc). */
function readProcStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Field 2 is the command name in parentheses and may itself hold spaces and parentheses: count from the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3.
  return { state: fields[0], startTime: fields[22 - 3] };
}

function readBootId(): string | null {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

const hasProc = (): boolean => readProcStat(process.pid) !== null;

export function processIdentity(pid: number): ProcessIdentity {
  return { pid, startTime: readProcStat(pid)?.startTime ?? null, bootId: readBootId() };
}

/**
 * Whether the process a lock file names still runs, seen from `self` (the process that wants the lock).
 * Not a holder: a pid that is gone, a zombie (killed, not yet reaped: its files are closed, it writes no more),
 * a pid now carried by a process with another start time, or a holder from another boot.
 */
export function isHolderAlive(holder: ProcessIdentity, self: ProcessIdentity): boolean {
  if (!hasProc()) return holder.pid !== self.pid && holder.pid !== process.ppid && pidExists(holder.pid);
  if (holder.bootId && self.bootId && holder.bootId !== self.bootId) return false;
  const stat = readProcStat(holder.pid);
  if (!stat || stat.state === 'Z' || stat.state === 'X') return false;
  if (holder.startTime !== null) return stat.startTime === holder.startTime;
  // A bare pid (a lock file from before start times were recorded): in a container pids repeat from one start to
  // the next, so after a crash we or our parent (the app that started us) can carry the dead owner's pid.
  return holder.pid !== self.pid && holder.pid !== process.ppid;
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else, which still means it runs.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
