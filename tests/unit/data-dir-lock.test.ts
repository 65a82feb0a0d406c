import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { DataDirInUseError, lockDataDir } from '../../src/platform/data-dir-lock.js';

/**
 * The embedded database's DATA_DIR lock: held while its owner lives, taken over when the owner is gone,
 * including when the pid written in a stale lock is our own (containers reuse pids across restarts).
 */
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hyperlocal-lock-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const lockFile = () => path.join(dir, 'pglite.lock');
/** A pid that existed and is gone now. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

test('when a live process other than us holds the lock, then taking it is refused with its pid', () => {
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
  try {
    fs.writeFileSync(lockFile(), `${holder.pid}\n`);
    expect(() => lockDataDir(lockFile())).toThrow(DataDirInUseError);
    expect(fs.readFileSync(lockFile(), 'utf8').trim()).toBe(String(holder.pid));
  } finally {
    holder.kill('SIGKILL');
  }
});

test('when the lock names a dead process, then it is stale and taken over', () => {
  fs.writeFileSync(lockFile(), `${deadPid()}\n`);
  const lock = lockDataDir(lockFile());
  expect(fs.readFileSync(lockFile(), 'utf8').trim()).toBe(String(process.pid));
  lock.release();
  expect(fs.existsSync(lockFile())).toBe(false);
});

test('when a stale lock carries our own pid (a restarted container reuses pids), then it is taken over, not refused', () => {
  fs.writeFileSync(lockFile(), `${process.pid}\n`);
  const lock = lockDataDir(lockFile());
  expect(lock.path).toBe(lockFile());
  lock.release();
});

test('when a stale lock carries our parent\'s pid, then it is taken over too', () => {
  fs.writeFileSync(lockFile(), `${process.ppid}\n`);
  expect(lockDataDir(lockFile()).path).toBe(lockFile());
});
