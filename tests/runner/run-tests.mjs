// `npm test`: jest in two steps, then a summary of what the run cost. Arguments go to jest (both steps).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAloneFiles } from './run-alone.mjs';
import { watchProcessTree } from './process-memory.mjs';

/**
 * 1. `parallel`: every test file but those marked `@run-alone`, in jest workers (jest.config.js: how many, and
 *    when one is replaced to keep its memory bounded), each worker on its own copy of the database.
 * 2. `alone`: the files marked `@run-alone`, one at a time, with nothing else running.
 * With the embedded database (no TEST_DATABASE_URL) there is one worker, so one step runs every file in turn.
 * At the end: the slowest files and the peak memory of the test processes, so a change that costs too much shows.
 */
const rootDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const jestBin = createRequire(import.meta.url).resolve('jest/bin/jest');
const args = process.argv.slice(2);
const embedded = !process.env.TEST_DATABASE_URL;
const steps = embedded || runAloneFiles(rootDir).length === 0 ? [undefined] : ['parallel', 'alone'];

// One JSON line per file (file-times-reporter.mjs); TEST_FILE_TIMES names a file to keep them in.
const keepTimes = Boolean(process.env.TEST_FILE_TIMES);
const timesFile = process.env.TEST_FILE_TIMES || path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hyperlocal-test-times-')), 'files.jsonl');
if (keepTimes) fs.rmSync(timesFile, { force: true });
const env = {
  ...process.env,
  // ESM test files need jest's VM modules; V8's default heap limit stays (workers are replaced instead).
  NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules', '--no-warnings'].filter(Boolean).join(' '),
  TEST_FILE_TIMES: timesFile,
};

let child = null;
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child?.kill(signal));

const memory = watchProcessTree(process.pid);
const startedAt = Date.now();
let exitCode = 0;
for (const group of steps) {
  // With only some files named on the command line, a step may have none of them; the sum is checked below.
  const stepArgs = group ? ['--passWithNoTests', ...args] : args;
  if (group) console.log(`\n==> jest: ${group === 'parallel' ? 'the files that run in parallel' : 'the files marked @run-alone, one at a time'}`);
  const code = await run(process.execPath, [jestBin, ...stepArgs, ...(group === 'alone' ? ['--maxWorkers=1'] : [])], { ...env, ...(group ? { TEST_GROUP: group } : {}) });
  if (code !== 0 && exitCode === 0) exitCode = code;
}
const peak = memory.stop();
const files = fs.existsSync(timesFile) ? fs.readFileSync(timesFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
if (!keepTimes) fs.rmSync(path.dirname(timesFile), { recursive: true, force: true });
if (steps.length > 1 && files.length === 0 && exitCode === 0 && !args.includes('--listTests')) {
  console.error('\nNo test files matched.');
  exitCode = 1;
}
if (files.length > 0) summarize(files, peak, Date.now() - startedAt);
process.exit(exitCode);

function run(command, commandArgs, commandEnv) {
  return new Promise((resolve) => {
    child = spawn(command, commandArgs, { cwd: rootDir, env: commandEnv, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function summarize(files, peak, ms) {
  const seconds = (n) => `${(n / 1000).toFixed(1)} s`;
  const mb = (n) => `${Math.round(n / 1024 / 1024)} MB`;
  const tests = files.reduce((sum, f) => sum + f.tests, 0);
  console.log(`\n==> Test run: ${files.length} files, ${tests} tests, ${seconds(ms)}`);
  console.log('Slowest 10 files:');
  for (const f of [...files].sort((a, b) => b.ms - a.ms).slice(0, 10)) {
    console.log(`  ${seconds(f.ms).padStart(8)}  ${f.file}${f.heapBytes ? `  (worker heap after it: ${mb(f.heapBytes)})` : ''}`);
  }
  if (peak?.largest) {
    console.log(`Peak memory: largest process ${mb(peak.largest.bytes)} resident (${peak.largest.name}); all test processes together ${mb(peak.totalBytes)} at most (${peak.processes} processes seen)`);
  }
}
