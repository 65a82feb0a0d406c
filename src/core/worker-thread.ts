import { Worker, type WorkerOptions } from 'node:worker_threads';

const BOOT = new URL('./worker-boot.mjs', import.meta.url);

/**
 * A worker thread running a TypeScript module of src (`entry`, a URL made from the caller's import.meta.url). Node
 * runs a worker's entry without the parent's loader hooks, so it starts from worker-boot.mjs, which registers tsx
 * first. `data` reaches the module as `workerData.data`.
 */
export function typescriptWorker(entry: URL, data: unknown, options: Omit<WorkerOptions, 'workerData'> = {}): Worker {
  return new Worker(BOOT, { ...options, workerData: { entry: entry.href, data } });
}
