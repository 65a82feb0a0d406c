/**
 * A process that holds a data dir lock, for tests: takes the lock file given as the first argument (the second,
 * `identity`, skips the kernel lock), prints `{"pid": <its pid>, "mode": <how it holds it>}` and stays alive
 * until it is killed.
 * Run with `node --import tsx/esm tests/helpers/data-dir-lock-holder.ts <lockPath> [kernel|identity]`.
 */
import { lockDataDir } from '../../src/platform/data-dir-lock.js';

const lock = lockDataDir(process.argv[2], { kernelLock: process.argv[3] !== 'identity' });
process.stdout.write(`${JSON.stringify({ pid: process.pid, mode: lock.mode })}\n`);
setInterval(() => undefined, 1 << 30);
