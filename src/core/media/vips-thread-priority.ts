import fs from 'node:fs';
import os from 'node:os';

/**
 * Image work runs on libvips' own threads ("libvips worker"), which take every core they can get. On a small machine
 * that starves the event loop and the database process: GET /health and a feed page would wait behind a flood of
 * uploads. Those threads are given a lower CPU priority (nice 10): they still use every idle cycle, so uploads are
 * processed as fast as before on an idle machine, but a request that needs the CPU gets it first.
 *
 * Linux only (threads are tasks under /proc/self/task, and setpriority takes a thread id there); elsewhere, and
 * wherever reading /proc fails, nothing is changed. Raising one's own niceness needs no privilege.
 */
export const VIPS_THREAD_NICENESS = 10;
const VIPS_THREAD_NAME = 'libvips worker';

const lowered = new Set<number>();
/** Threads already looked at (lowered or not libvips'): each thread's name is read once. */
const seen = new Set<number>();
let supported = process.platform === 'linux';

/** Called before each image job: libvips starts its threads lazily, so new ones are looked for each time. */
export function lowerVipsThreadPriority(): void {
  if (!supported) return;
  try {
    // The common case, no new thread, costs one readdir of a few dozen entries.
    for (const task of fs.readdirSync('/proc/self/task')) {
      const tid = Number(task);
      if (seen.has(tid)) continue;
      seen.add(tid);
      const name = fs.readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim();
      if (name !== VIPS_THREAD_NAME) continue;
      os.setPriority(tid, VIPS_THREAD_NICENESS);
      lowered.add(tid);
    }
  } catch {
    supported = false;
  }
}

/** The threads lowered so far (a test reads their priority back). */
export const loweredVipsThreads = (): number[] => [...lowered];
