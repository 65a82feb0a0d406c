import os from 'node:os';
import { AppError } from '../errors.js';

/**
 * Image work runs on libuv's pool (sharp's threads), never on the event loop, and at most `running` jobs at once on
 * this node: a flood of uploads waits its turn instead of decoding twenty 12-megapixel photos at the same time
 * (each costs its pixels in memory). At most `waiting` more wait; past that the upload is answered
 * 503 with Retry-After, and the client tries again a little later.
 *
 * One job per core keeps the event loop's own core free enough that other requests (GET /health, a feed page) are
 * answered while uploads are processed; libuv's pool has 4 threads, so files and DNS still have theirs.
 */
export class WorkGate {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    readonly running: number,
    readonly waiting: number,
  ) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.active >= this.running) {
      if (this.queue.length >= this.waiting) throw busy();
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else this.active++;
    try {
      return await job();
    } finally {
      // The slot passes straight to the next job in line, so `active` never dips and lets a newcomer jump the queue.
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    }
  }

  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.queue.length };
  }
}

export const UPLOAD_BUSY_RETRY_AFTER_SECONDS = 2;

const busy = () =>
  new AppError(503, { detail: 'Too many uploads are being processed. Try again shortly.' }, { 'Retry-After': String(UPLOAD_BUSY_RETRY_AFTER_SECONDS) });

/** The node's one gate for image work (jobs: cores, at most 4; queue: 32 uploads, at most 320 MB of bodies). */
export const imageWork = new WorkGate(Math.max(1, Math.min(4, os.availableParallelism())), 32);
