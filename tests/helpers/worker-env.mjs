// setupFiles: runs in each test file's environment before the file, so everything the file imports reads it.
import { workerDatabaseUrl } from './worker-database.mjs';

// Files that run in parallel use their worker's copy of the template database (global-setup.mjs).
if (process.env.TEST_TEMPLATE_DATABASE_URL) {
  process.env.TEST_DATABASE_URL = workerDatabaseUrl(process.env.TEST_TEMPLATE_DATABASE_URL, process.env.JEST_WORKER_ID ?? '1');
}
