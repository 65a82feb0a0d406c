import fs from 'node:fs';
import path from 'node:path';

/**
 * A jest reporter that appends one JSON line per test file to $TEST_FILE_TIMES (when set): its path, how long it
 * ran, its tests and, with --logHeapUsage, the worker's heap after it. tests/runner/run-tests.mjs reads them to
 * print the slowest files at the end of a run.
 */
export default class FileTimesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.out = process.env.TEST_FILE_TIMES;
  }

  onTestResult(test, result) {
    if (!this.out) return;
    const line = {
      file: path.relative(this.rootDir, result.testFilePath),
      ms: result.perfStats.end - result.perfStats.start,
      tests: result.numPassingTests + result.numFailingTests + result.numPendingTests + result.numTodoTests,
      failed: result.numFailingTests > 0 || Boolean(result.testExecError),
      heapBytes: result.memoryUsage ?? null,
    };
    fs.appendFileSync(this.out, `${JSON.stringify(line)}\n`);
  }
}
