import fs from 'node:fs/promises';

export default async function globalTeardown() {
  const embedded = globalThis.__embeddedDb;
  if (embedded) {
    await embedded.stop();
    await fs.rm(embedded.dataDir, { recursive: true, force: true });
  }
}
