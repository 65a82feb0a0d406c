import type { Worker } from 'node:worker_threads';
import webpush from 'web-push';
import { typescriptWorker } from '../../../core/worker-thread.js';
import { inTurn } from '../../../platform/cpu-turns.js';

/**
 * A Web Push's encryption (web-push's generateRequestDetails: an ECDH key pair and shared secret, HKDF, AES-GCM; about
 * 0.3 ms of CPU, most of what a push costs the node) in a worker thread (webpush-encrypt-worker.ts), so a flood of
 * pushes does not hold the event loop that answers requests and /health. The pushes asked for in one turn of the loop
 * (a claim's) go to the thread as one message. Until the thread has started, and if it fails, the encryption runs on
 * the loop in turns of at most 2 ms (src/platform/cpu-turns.ts).
 */
export interface EncryptOptions {
  TTL: number;
  urgency: 'high' | 'normal';
  topic: string;
  contentEncoding: 'aes128gcm';
}

export interface EncryptJob {
  id: number;
  endpoint: string;
  keys: { p256dh: string; auth: string };
  payload: string;
  options: EncryptOptions;
}

export type EncryptResult = { id: number; ok: true; headers: Record<string, string>; body: Uint8Array | null } | { id: number; ok: false; message: string };

export interface Encrypted {
  headers: Record<string, string>;
  body: Buffer | null;
}

const WORKER_ENTRY = new URL('./webpush-encrypt-worker.ts', import.meta.url);
/** A thread left without work this long ends; the next push starts another. */
const THREAD_IDLE_MS = 600_000;
/** Jobs in one message at most. */
const BATCH_MAX = 256;

/** Tests and benches: pushes encrypted by the thread and on the loop. */
export const encryptCounts = { thread: 0, loop: 0 };

let useThread = true;

/** Tests: encrypt on the event loop only (false), or in the thread (true, the default). */
export function encryptInThread(on: boolean): void {
  useThread = on;
  if (!on) thread?.stop();
}

function onLoop(job: Omit<EncryptJob, 'id'>): Promise<Encrypted> {
  encryptCounts.loop++;
  return inTurn(() => {
    const details = webpush.generateRequestDetails({ endpoint: job.endpoint, keys: job.keys }, job.payload, job.options);
    return { headers: details.headers as Record<string, string>, body: details.body ?? null };
  });
}

class EncryptThread {
  private readonly worker: Worker;
  ready = false;
  dead = false;
  private nextId = 1;
  private readonly pending = new Map<number, { job: Omit<EncryptJob, 'id'>; resolve(r: Encrypted): void; reject(e: Error): void }>();
  private gathering: EncryptJob[] | null = null;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor() {
    this.worker = typescriptWorker(WORKER_ENTRY, null);
    this.worker.unref();
    this.worker.on('message', (msg: EncryptResult[] | { ready: true }) => {
      if (!Array.isArray(msg)) {
        this.ready = true;
        return;
      }
      for (const result of msg) {
        const waiting = this.pending.get(result.id);
        if (!waiting) continue;
        this.pending.delete(result.id);
        if (result.ok) waiting.resolve({ headers: result.headers, body: result.body ? Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength) : null });
        else waiting.reject(new Error(result.message));
      }
      if (!this.pending.size) this.idle();
    });
    this.worker.on('error', () => this.stop());
    this.worker.on('exit', () => this.stop());
  }

  encrypt(job: Omit<EncryptJob, 'id'>): Promise<Encrypted> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    return new Promise<Encrypted>((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { job, resolve, reject });
      if (this.gathering && this.gathering.length < BATCH_MAX) return void this.gathering.push({ id, ...job });
      const batch: EncryptJob[] = [{ id, ...job }];
      this.gathering = batch;
      setImmediate(() => {
        if (this.gathering === batch) this.gathering = null;
        if (this.dead) return;
        encryptCounts.thread += batch.length;
        this.worker.postMessage(batch);
      });
    });
  }

  private idle(): void {
    if (this.idleTimer || this.dead) return;
    this.idleTimer = setTimeout(() => this.stop(), THREAD_IDLE_MS).unref();
  }

  /** Ends the thread; what it had not answered is encrypted on the loop instead. */
  stop(): void {
    if (this.dead) return;
    this.dead = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (thread === this) thread = null;
    void this.worker.terminate();
    const left = [...this.pending.values()];
    this.pending.clear();
    for (const waiting of left) onLoop(waiting.job).then(waiting.resolve, waiting.reject);
  }
}

let thread: EncryptThread | null = null;

/** The request's headers (Content-Encoding, Encryption, TTL, Urgency, Topic...) and its encrypted body. */
export function encryptPush(job: Omit<EncryptJob, 'id'>): Promise<Encrypted> {
  if (!useThread) return onLoop(job);
  if (!thread) thread = new EncryptThread();
  // The thread starts in about half a second (it loads tsx and web-push): meanwhile, on the loop.
  if (!thread.ready) return onLoop(job);
  return thread.encrypt(job);
}

/**
 * Starts the thread ahead of the first push (when the Web Push sender is built: the VAPID key's first request, or the
 * first push): its start loads tsx and web-push, half a second of CPU that would otherwise land in a flood's first
 * second, beside the fan-out's first batches and the requests answered meanwhile.
 */
export function warmEncryptThread(): void {
  if (useThread && !thread) thread = new EncryptThread();
}

/** At shutdown. */
export function stopEncryptThread(): void {
  thread?.stop();
}
