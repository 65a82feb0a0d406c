import inspector from 'node:inspector';
import { typescriptWorker } from '../core/worker-thread.js';
import type { LogFormat } from './logger.js';

/**
 * The event-loop watchdog of `npm start` (issue 31; decision and reasons in docs/deployment.md, "Event-loop
 * watchdog"). The event loop writes the time into shared memory every `beatMs`; a worker thread (watchdog-thread.ts),
 * whose own loop keeps running whatever the main one does, reads it. When the main loop has not written for
 * `blockedMs`, the thread logs it (one line, written straight to standard output), interrupts the main thread through
 * the inspector to log where it was stuck, and ends the process with WATCHDOG_EXIT_CODE, so that the supervisor
 * (Docker's restart policy, systemd, Kubernetes) starts a fresh one. A node whose loop is stuck answers nothing,
 * not even SIGTERM (signal handlers run on that loop), so nothing is lost by ending it.
 */
export const WATCHDOG_EXIT_CODE = 70;

/**
 * Milliseconds on a clock both threads share (each thread's performance.now() counts from its own start) and that a
 * wall-clock change does not move.
 */
export const monotonicNow = () => performance.timeOrigin + performance.now();

export interface WatchdogData {
  /** One BigInt64: the main loop's last beat, in monotonicNow() milliseconds. */
  beat: SharedArrayBuffer;
  blockedMs: number;
  checkMs: number;
  exitCode: number;
  format: LogFormat;
}

export interface Watchdog {
  stop(): Promise<void>;
}

/** Starts the watchdog; null when there is none to start (0 ms, or a debugger attached, whose pauses are no hang). */
export function startWatchdog(opts: { blockedMs: number; format: LogFormat }): Watchdog | null {
  if (opts.blockedMs <= 0 || inspector.url() !== undefined) return null;
  const beat = new SharedArrayBuffer(8);
  const last = new BigInt64Array(beat);
  const write = () => Atomics.store(last, 0, BigInt(Math.round(monotonicNow())));
  write();
  // Several beats per limit, so that a loop blocked for `blockedMs` is seen within about a beat of it.
  const beatMs = Math.max(10, Math.min(500, Math.floor(opts.blockedMs / 4)));
  const timer = setInterval(write, beatMs).unref();
  const data: WatchdogData = { beat, blockedMs: opts.blockedMs, checkMs: beatMs, exitCode: WATCHDOG_EXIT_CODE, format: opts.format };
  const worker = typescriptWorker(new URL('./watchdog-thread.ts', import.meta.url), data);
  // The watchdog never keeps the process alive: a graceful shutdown ends with it still running.
  worker.unref();
  return {
    async stop() {
      clearInterval(timer);
      await worker.terminate();
    },
  };
}
