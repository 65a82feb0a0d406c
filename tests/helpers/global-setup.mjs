// Jest loads global setup outside its module system, so this file is plain ESM and loads the
// TypeScript sources it needs through tsx.
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import pg from 'pg';
import { pino } from 'pino';
import { tsImport } from 'tsx/esm/api';
import { quoteIdent, templateDatabaseName, workerDatabaseName } from './worker-database.mjs';

/**
 * The run's databases: TEST_DATABASE_URL when set (CI: a real PostgreSQL with PostGIS), otherwise an embedded
 * PGlite started here and served until the run ends. Migrations run once, on that database. When jest runs
 * files in parallel (more than one worker, a real server), that database is the template and each worker gets
 * its own copy of it (worker-database.mjs), so files running at the same time never share rows.
 */
export default async function globalSetup(globalConfig) {
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
  delete process.env.TEST_TEMPLATE_DATABASE_URL;
  if (!process.env.TEST_EMBEDDED && globalConfig.maxWorkers > 1) await cloneWorkerDatabases(globalConfig.maxWorkers);
}

/**
 * `CREATE DATABASE ... TEMPLATE` copies the migrated database in about a second. Each run starts from fresh
 * copies (one left by an earlier run is dropped), and global teardown drops them. The template may have no
 * other session while it is copied: nothing of this run connects to it after the migrations.
 */
async function cloneWorkerDatabases(workers) {
  const template = templateDatabaseName(process.env.TEST_DATABASE_URL);
  const names = Array.from({ length: workers }, (_, i) => workerDatabaseName(template, i + 1));
  // The server's maintenance database: the template itself may have no session while it is copied.
  const maintenanceUrl = new URL(process.env.TEST_DATABASE_URL);
  maintenanceUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: maintenanceUrl.toString() });
  await admin.connect();
  try {
    for (const name of names) {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(template)}`);
    }
  } finally {
    await admin.end();
  }
  globalThis.__workerDatabases = { adminUrl: maintenanceUrl.toString(), names };
  process.env.TEST_TEMPLATE_DATABASE_URL = process.env.TEST_DATABASE_URL;
}
