/**
 * A stand-in for the app's process in tests: starts the embedded database on the DATA_DIR given as the
 * first argument, prints `{"pid": <database process pid>}` and stays alive until it is killed.
 * Run with `node --import tsx/esm tests/helpers/embedded-db-holder.ts <dataDir>`.
 */
import { startEmbeddedDatabase } from '../../src/platform/embedded-db.js';

const db = await startEmbeddedDatabase({ dataDir: process.argv[2] });
process.stdout.write(`${JSON.stringify({ pid: db.pid })}\n`);
// The database's IPC channel does not keep a process alive; this timer does, until the test kills us.
setInterval(() => undefined, 1 << 30);
