import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * `npm start` runs Node with an old-generation floor (docs/modules/media.md, "Garbage collection during uploads"):
 * V8 counts the Buffers of uploads in flight against the old generation's limit, which it derives from the live heap
 * (about 36 MB), so without a floor a flood of photo uploads started a full collection every two or three uploads.
 * The benchmark (`npm run bench -- media`) measures the effect; this guards the flag and that Node accepts it.
 */
const start = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
const words = start.trim().split(/\s+/);
const nodeFlags = words.slice(1, words.indexOf('--import'));

describe('npm start', () => {
  test('runs node with its flags before the tsx loader', () => {
    expect(words[0]).toBe('node');
    expect(words.slice(words.indexOf('--import'))).toEqual(['--import', 'tsx', 'src/main.ts']);
  });

  test('gives V8 an old-generation floor of at least 128 MB', () => {
    const floor = nodeFlags.map((f) => /^--initial-old-space-size=(\d+)$/.exec(f)?.[1]).find(Boolean);
    expect(Number(floor)).toBeGreaterThanOrEqual(128);
  });

  test('uses only flags this Node accepts (an unknown one stops node before the service starts)', () => {
    const script = 'console.log(JSON.stringify(process.execArgv))';
    const out = execFileSync(process.execPath, [...nodeFlags, '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(JSON.parse(out)).toEqual([...nodeFlags, '-e', expect.any(String)]);
  });
});
