import fs from 'node:fs';
import path from 'node:path';

/**
 * A test file that must not share the machine with other test files says so with a line `@run-alone <why>` in a
 * comment (for example ` * @run-alone: it kills and restarts the service and times its recovery`). `npm test` runs
 * the other files in parallel first, then these one at a time (tests/runner/run-tests.mjs).
 */
export const RUN_ALONE_MARKER = /^\s*(?:\*|\/\/)\s*@run-alone\b/m;

export function runAloneFiles(rootDir) {
  return testFiles(path.join(rootDir, 'tests')).filter((file) => RUN_ALONE_MARKER.test(fs.readFileSync(file, 'utf8')));
}

function testFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** A regular expression that matches exactly this file's path (for testPathIgnorePatterns / testRegex). */
export const exactPath = (file) => `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
