import fs from 'node:fs/promises';

export default async function globalTeardown(): Promise<void> {
  const embedded = (globalThis as Record<string, unknown>).__embeddedDb as { stop(): Promise<void>; dataDir: string } | undefined;
  if (embedded) {
    await embedded.stop();
    await fs.rm(embedded.dataDir, { recursive: true, force: true });
  }
}
