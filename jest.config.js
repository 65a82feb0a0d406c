import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exactPath, runAloneFiles } from './tests/runner/run-alone.mjs';

const rootDir = path.dirname(fileURLToPath(import.meta.url));
const embedded = !process.env.TEST_DATABASE_URL;
/** Set by `npm test` (tests/runner/run-tests.mjs): `parallel` or `alone`; unset, jest runs every file. */
const group = process.env.TEST_GROUP;
const alone = group ? runAloneFiles(rootDir) : [];

/** Jest runs the TypeScript sources as ESM through @swc/jest. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: group === 'alone' ? alone : ['<rootDir>/tests/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...(group === 'parallel' ? alone.map(exactPath) : [])],
  globalSetup: '<rootDir>/tests/helpers/global-setup.mjs',
  globalTeardown: '<rootDir>/tests/helpers/global-teardown.mjs',
  // Each file's environment first points TEST_DATABASE_URL at its worker's own database (parallel runs).
  setupFiles: ['<rootDir>/tests/helpers/worker-env.mjs'],
  reporters: ['default', '<rootDir>/tests/runner/file-times-reporter.mjs'],
  // Files run in parallel workers, each with its own database (global-setup.mjs). The embedded database
  // serves one connection at a time, so it gets one worker. At least two workers (CI has two cores), at most four.
  maxWorkers: embedded ? 1 : Math.min(4, Math.max(2, os.availableParallelism())),
  // Jest's ESM mode keeps every file's modules alive in its process (jestjs/jest#14605, about 37 MB a file):
  // a worker whose heap is above this after a file is replaced by a fresh one, so no process grows with the
  // number of files. With --runInBand there is no worker to replace: keep that for a few files.
  workerIdleMemoryLimit: '1GB',
  testTimeout: 30000,
};
