import type { ProcessedImage } from '../../core/uploads.js';
import { platform } from '../../platform/index.js';

/**
 * Files of one write: stored before its transaction (storage is not transactional), removed again if the
 * write fails; files the write replaced or orphaned are removed only after it committed.
 */
export class StagedFiles {
  private readonly added: string[] = [];

  async put(folder: string, file: ProcessedImage): Promise<string> {
    const key = await platform.storage.put(folder, file);
    this.added.push(key);
    return key;
  }

  /** The write failed: its new files go. */
  async discard(): Promise<void> {
    await deleteFiles(this.added.splice(0));
  }
}

/** Best effort: a file left behind costs storage, not correctness; the rows no longer name it. */
export async function deleteFiles(keys: Array<string | null | undefined>): Promise<void> {
  await Promise.all(keys.filter((k): k is string => Boolean(k)).map((k) => platform.storage.delete(k).catch(() => undefined)));
}

/** A unique or check constraint named `constraint` refused the write (drizzle wraps the driver's error). */
export function violates(err: unknown, constraint: string): boolean {
  for (let e = err as { constraint?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.constraint === constraint) return true;
  }
  return false;
}
