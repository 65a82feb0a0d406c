import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { typescriptWorker } from '../worker-thread.js';
import { AppError } from '../errors.js';
import type { ProcessedAudio } from './audio-tags.js';
import type { AudioType } from './media-names.js';

/**
 * Untrusted audio is read off the event loop (issue 31: one 52-byte MP3 once looped our tag stripper forever on the
 * main thread, and with it every request of the node). Tag stripping and music-metadata's duration run in a worker
 * thread (audio-worker.ts), one job per thread at a time, each with a deadline: a job that has not answered by then
 * has its thread terminated, and the upload is refused with a 400 like any other file that is not valid audio. The
 * event loop only copies bytes in and out. docs/modules/media.md has the numbers.
 */
export interface AudioJob {
  /** The file's bytes, an ArrayBuffer of their own (transferred to the thread). */
  bytes: ArrayBuffer;
  type: AudioType;
  /** Read the duration with music-metadata as well (uploads need it; media:reprocess does not). */
  readDuration: boolean;
}

export type AudioJobResult = { ok: true; body: ArrayBuffer; durationSeconds: number | null } | { ok: false; reason: string };

/** A stripped upload and its duration in seconds as music-metadata read it (null: unreadable). */
export interface CheckedAudio extends ProcessedAudio {
  durationSeconds: number | null;
}

/** The file could not be read as audio in time, or the reader gave up on it: the upload's fault, a 400. */
export class AudioRejected extends Error {}

export const AUDIO_NOT_READ_IN_TIME = 'Upload a valid audio file: it could not be read in time.';
export const AUDIO_NOT_READABLE = 'Upload a valid audio file: its structure could not be read.';

export const AUDIO_WORK_TIMEOUT_MS_DEFAULT = 10_000;
/** A thread's heap: far above what a 25 MB file needs, far below what would hurt the node. */
const THREAD_HEAP_MB = 256;
/** A thread left without work this long ends; the next upload starts another (about half a second). */
const THREAD_IDLE_MS = 30_000;
/** Starting a thread loads tsx and music-metadata: slow on a loaded machine, but not this slow. */
const THREAD_START_MS = 60_000;

let timeoutMs = AUDIO_WORK_TIMEOUT_MS_DEFAULT;

/** Set at start from AUDIO_WORK_TIMEOUT_MS (startServer, media:reprocess). */
export function configureAudioWork(opts: { timeoutMs: number }): void {
  timeoutMs = opts.timeoutMs;
}

const WORKER_ENTRY = new URL('./audio-worker.ts', import.meta.url);

/** One worker thread, one job at a time. */
class AudioThread {
  private readonly worker: Worker;
  private readonly started: Promise<void>;
  private pending: { resolve(r: AudioJobResult): void; reject(e: Error): void } | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  dead = false;

  constructor(private readonly onGone: (thread: AudioThread) => void) {
    this.worker = typescriptWorker(WORKER_ENTRY, null, { resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB } });
    this.started = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the audio worker thread did not start in time')), THREAD_START_MS);
      this.worker.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    this.started.catch(() => this.stop());
    this.worker.on('message', (msg: AudioJobResult | { ready: true }) => {
      if ('ready' in msg) return;
      const pending = this.pending;
      this.pending = null;
      pending?.resolve(msg);
    });
    // Out of memory, or an exception the job's own try did not catch: the file took the thread down.
    this.worker.on('error', (err) => this.fail(new AudioRejected(`the audio worker thread failed: ${err.message}`)));
    this.worker.on('exit', () => {
      this.fail(new AudioRejected('the audio worker thread exited'));
      this.dead = true;
      this.onGone(this);
    });
  }

  async run(job: AudioJob, deadlineMs: number): Promise<AudioJobResult> {
    await this.started;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    // Held while a job runs (media:reprocess may have nothing else keeping the process alive), released when idle.
    this.worker.ref();
    try {
      return await new Promise<AudioJobResult>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new AudioRejected(AUDIO_NOT_READ_IN_TIME));
          this.stop();
        }, deadlineMs);
        this.pending = {
          resolve: (r) => (clearTimeout(timer), resolve(r)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        };
        this.worker.postMessage(job, [job.bytes]);
      });
    } finally {
      if (!this.dead) {
        this.worker.unref();
        this.idleTimer = setTimeout(() => this.stop(), THREAD_IDLE_MS).unref();
      }
    }
  }

  private fail(err: Error): void {
    const pending = this.pending;
    this.pending = null;
    pending?.reject(err);
  }

  stop(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.dead = true;
    this.onGone(this);
    void this.worker.terminate();
  }
}

/**
 * At most `threads` jobs at once, `waiting` more in line, beyond that 503 with Retry-After (as for images, whose gate
 * is work-gate.ts); a thread is reused while it lives and replaced when a job killed it.
 */
class AudioThreads {
  private active = 0;
  private readonly line: Array<() => void> = [];
  private readonly idle: AudioThread[] = [];

  constructor(
    private readonly threads: number,
    private readonly waiting: number,
  ) {}

  async run(job: AudioJob): Promise<AudioJobResult> {
    if (this.active >= this.threads) {
      if (this.line.length >= this.waiting) throw busy();
      await new Promise<void>((resolve) => this.line.push(resolve));
    } else this.active++;
    const thread = this.idle.pop() ?? new AudioThread((gone) => this.forget(gone));
    try {
      return await thread.run(job, timeoutMs);
    } finally {
      if (!thread.dead) this.idle.push(thread);
      // The slot passes straight to the next job in line.
      const next = this.line.shift();
      if (next) next();
      else this.active--;
    }
  }

  private forget(thread: AudioThread): void {
    const at = this.idle.indexOf(thread);
    if (at >= 0) this.idle.splice(at, 1);
  }
}

const busy = () => new AppError(503, { detail: 'Too many uploads are being processed. Try again shortly.' }, { 'Retry-After': '2' });

/** Audio uploads are rarer than photos and cheap to read: two threads (one on a single core), 32 waiting. */
const audioThreads = new AudioThreads(Math.max(1, Math.min(2, os.availableParallelism())), 32);

/**
 * Strips the file's identifying tags and reads its duration (when asked), in a worker thread with a deadline.
 * Rejects with AudioRejected when the file could not be read in time or took the thread down; 503 (AppError) when
 * too many audio files wait already.
 *
 * The bytes are handed over: a Buffer that is the whole of its memory (what multer and storage reads give for any file
 * above 4 KB) is moved to the thread without a copy and is empty afterwards; a view on a larger buffer (Node's pool, a
 * socket frame) is copied first. Copying 25 MB held the event loop for about 22 ms.
 */
export async function processAudio(bytes: Buffer, type: AudioType, opts: { readDuration: boolean }): Promise<CheckedAudio> {
  const wholeBuffer = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  const own = wholeBuffer ? (bytes.buffer as ArrayBuffer) : (bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  const result = await audioThreads.run({ bytes: own, type, readDuration: opts.readDuration });
  if (!result.ok) throw new AudioRejected(AUDIO_NOT_READABLE);
  return { kind: 'audio', type, body: Buffer.from(result.body), durationSeconds: result.durationSeconds };
}
