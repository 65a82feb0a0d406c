// Jest loads global setup outside its module system, so this file is plain ESM and loads the
// TypeScript sources it needs through tsx.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import pg from 'pg';
import { pino } from 'pino';
import { tsImport } from 'tsx/esm/api';

/**
 * One database for the whole run: TEST_DATABASE_URL when set (CI: a real PostgreSQL with PostGIS),
 * otherwise an embedded PGlite started here and served until the run ends. Migrations run once.
 */
export default async function globalSetup() {
  const log = pino({ level: 'silent' });
  const { migrate } = await tsImport('../../src/platform/migrate.ts', import.meta.url);
  if (!process.env.TEST_DATABASE_URL) {
    const { startEmbeddedDatabase } = await tsImport('../../src/platform/embedded-db.ts', import.meta.url);
    // The database process keeps its lock file and unix socket beside its data dir, so inside this one.
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-test-db-'));
    const embedded = await startEmbeddedDatabase({ dataDir: path.join(dataDir, 'pglite') });
    globalThis.__embeddedDb = { ...embedded, dataDir };
    process.env.TEST_DATABASE_URL = embedded.connectionString;
    // One shared session: the app's pool must hold a single connection.
    process.env.TEST_DATABASE_POOL_MAX = '1';
    process.env.TEST_EMBEDDED = '1';
    console.log(`\nTEST_DATABASE_URL is not set: using an embedded PGlite database (${dataDir}).`);
  }
  if (!process.env.REDIS_URL) console.log('REDIS_URL is not set: tests that need Redis are skipped.');
  const pool = new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 1 });
  try {
    await migrate(pool, log);
  } finally {
    await pool.end();
  }
}
