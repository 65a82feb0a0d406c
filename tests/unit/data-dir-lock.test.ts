import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { DataDirInUseError, lockDataDir, type DataDirLockMode } from '../../src/platform/data-dir-lock.js';
import { processIdentity } from '../../src/platform/process-identity.js';

/**
 * The embedded database's DATA_DIR lock dies with its holder: held while the holder runs, free as soon as it is
 * killed (even while it is an unreaped zombie), and never held by an unrelated process that got the pid later.
 * Both ways of holding it are tried: the kernel's flock (the default where flock(1) exists) and the lock file
 * that names its holder by pid and start time (the fallback).
 */
let dir: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hyperlocal-lock-'));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const lockFile = () => path.join(dir, 'pglite.lock');
/** A pid that existed and is gone now. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
/** Field 3 of /proc/<pid>/stat: R, S, Z... */
const stateOf = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
};

async function firstLine(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing a line`)));
  });
}

const holderCommand = (mode: DataDirLockMode) => `${process.execPath} --import tsx/esm tests/helpers/data-dir-lock-holder.ts ${lockFile()} ${mode}`;

/** A process of its own that takes the lock and keeps it. */
async function aHolder(mode: DataDirLockMode): Promise<{ pid: number; mode: DataDirLockMode }> {
  const child = spawn('sh', ['-c', `exec ${holderCommand(mode)}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return JSON.parse(await firstLine(child));
}

/**
 * A holder whose parent never reaps it (a shell that became `sleep`), so that once killed it stays a zombie,
 * as the database process does after `kill -9` of the service's process group until init reaps it.
 */
async function aHolderThatWillBeAZombie(mode: DataDirLockMode): Promise<{ pid: number }> {
  const parent = spawn('sh', ['-c', `${holderCommand(mode)} & exec sleep 120`], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(parent);
  return JSON.parse(await firstLine(parent));
}

/** Until the process is a zombie and no thread of it runs any more (the leader turns Z before its last thread exits). */
async function untilZombie(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  const threads = () => /^Threads:\s*(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  while (stateOf(pid) !== 'Z' || threads() !== '1') {
    if (Date.now() > deadline) throw new Error(`${pid} did not become a zombie`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const HOLDER_MS = 30_000;

describe.each([['kernel' as const], ['identity' as const]])('the %s lock', (mode) => {
  const take = () => lockDataDir(lockFile(), { kernelLock: mode === 'kernel' });

  test('when it is taken, then it is held in that way and the file names its holder', () => {
    const lock = take();
    expect(lock.mode).toBe(mode);
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8'))).toEqual(processIdentity(process.pid));
    lock.release();
    expect(fs.existsSync(lockFile())).toBe(false);
  });

  test('when a running process holds it, then taking it is refused naming that process', async () => {
    const holder = await aHolder(mode);
    expect(holder.mode).toBe(mode);
    expect(() => take()).toThrow(new DataDirInUseError(lockFile(), holder.pid));
  }, HOLDER_MS);

  test('when its holder was killed and is still an unreaped zombie, then it is taken over', async () => {
    const holder = await aHolderThatWillBeAZombie(mode);
    process.kill(holder.pid, 'SIGKILL');
    await untilZombie(holder.pid);
    const lock = take();
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid);
    lock.release();
  }, HOLDER_MS);

  test('when the recorded pid now belongs to another live process (a reused pid), then it is taken over', () => {
    const unrelated = spawn('sleep', ['60'], { stdio: 'ignore' });
    children.push(unrelated);
    const recorded = { ...processIdentity(unrelated.pid!), startTime: '1' };
    fs.writeFileSync(lockFile(), JSON.stringify(recorded));
    const lock = take();
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  test('when the lock names a dead process, then it is stale and taken over', () => {
    fs.writeFileSync(lockFile(), JSON.stringify(processIdentity(deadPid())));
    const lock = take();
    lock.release();
    expect(fs.existsSync(lockFile())).toBe(false);
  });

  test('when a lock file from before start times were recorded carries our own or our parent\'s pid, then it is taken over', () => {
    // A restarted container reuses pids: the dead owner's pid may now be ours or that of the app that started us.
    for (const pid of [process.pid, process.ppid]) {
      fs.writeFileSync(lockFile(), `${pid}\n`);
      take().release();
    }
  });
});

test('when the kernel lock\'s holder is killed while a start is trying to take it, then that start waits for it briefly and takes it', async () => {
  const holder = await aHolder('kernel');
  // lockDataDir blocks this thread while it waits, so the kill comes from another process.
  children.push(spawn('sh', ['-c', `sleep 0.3; kill -9 ${holder.pid}`], { stdio: 'ignore' }));
  const startedAt = Date.now();
  const lock = lockDataDir(lockFile());
  expect(Date.now() - startedAt).toBeGreaterThanOrEqual(250);
  lock.release();
}, HOLDER_MS);

test('when flock(1) is found, then the kernel lock is the default', () => {
  const lock = lockDataDir(lockFile());
  expect(lock.mode).toBe(spawnSync('flock', ['--version']).error ? 'identity' : 'kernel');
  lock.release();
});
