import os from 'node:os';
import { AppError } from '../errors.js';

/**
 * Image work runs on libuv's pool (sharp's threads), never on the event loop, and is admitted by what it costs: at
 * most `running` jobs at once on this node, and at most `pixels` decoded pixels among them (each job's pixels are
 * what its headers declare, image-pipeline.ts). A flood of uploads waits its turn instead of decoding twenty
 * 12-megapixel photos at the same time, and a handful of huge-but-legal images (48 megapixels each) cannot run side by
 * side: what a job holds in memory grows with its pixels, not with the number of jobs. At most `waiting` more wait;
 * past that the upload is answered 503 with Retry-After, and the client tries again a little later.
 *
 * One job per core keeps the event loop's own core free enough that other requests (GET /health, a feed page) are
 * answered while uploads are processed; libuv's pool has 4 threads, so files and DNS still have theirs.
 *
 * Jobs start in the order they came (first in, first out): a large image at the head of the line waits until enough
 * pixels are free rather than letting small ones overtake it forever. A job larger than the whole budget runs alone.
 */
export class WorkGate {
  private active = 0;
  private pixelsInUse = 0;
  private readonly queue: Array<{ pixels: number; start: () => void }> = [];

  constructor(
    readonly running: number,
    readonly waiting: number,
    readonly pixels: number,
  ) {}

  async run<T>(pixels: number, job: () => Promise<T>): Promise<T> {
    if (this.queue.length > 0 || !this.fits(pixels)) {
      if (this.queue.length >= this.waiting) throw busy();
      await new Promise<void>((start) => this.queue.push({ pixels, start }));
    } else this.take(pixels);
    try {
      return await job();
    } finally {
      this.active--;
      this.pixelsInUse -= pixels;
      this.startWaiting();
    }
  }

  private fits(pixels: number): boolean {
    if (this.active >= this.running) return false;
    return this.active === 0 || this.pixelsInUse + pixels <= this.pixels;
  }

  private take(pixels: number): void {
    this.active++;
    this.pixelsInUse += pixels;
  }

  /** Starts the jobs at the head of the line while they fit; counted as started here, so no newcomer slips in. */
  private startWaiting(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0]!.pixels)) {
      const next = this.queue.shift()!;
      this.take(next.pixels);
      next.start();
    }
  }

  get load(): { active: number; waiting: number; pixels: number } {
    return { active: this.active, waiting: this.queue.length, pixels: this.pixelsInUse };
  }
}

export const UPLOAD_BUSY_RETRY_AFTER_SECONDS = 2;

const busy = () =>
  new AppError(503, { detail: 'Too many uploads are being processed. Try again shortly.' }, { 'Retry-After': String(UPLOAD_BUSY_RETRY_AFTER_SECONDS) });

/**
 * The node's one gate for image work (jobs: cores, at most 4; pixels: IMAGE_WORK_PIXELS; queue: 32 uploads, at most
 * 320 MB of bodies).
 */
export const IMAGE_WORK_PIXELS = 64_000_000;
export const imageWork = new WorkGate(Math.max(1, Math.min(4, os.availableParallelism())), 32, IMAGE_WORK_PIXELS);
