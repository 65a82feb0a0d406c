import fs from 'node:fs/promises';
import pg from 'pg';
import { quoteIdent } from './worker-database.mjs';

export default async function globalTeardown() {
  const embedded = globalThis.__embeddedDb;
  if (embedded) {
    await embedded.stop();
    await fs.rm(embedded.dataDir, { recursive: true, force: true });
  }
  // The workers' copies of the template (global-setup.mjs); a run that dies before this leaves them to the next.
  const workerDatabases = globalThis.__workerDatabases;
  if (workerDatabases) {
    const admin = new pg.Client({ connectionString: workerDatabases.adminUrl });
    await admin.connect();
    try {
      for (const name of workerDatabases.names) await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
}
