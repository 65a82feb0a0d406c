import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * How `npm start` runs the service, read from package.json's start script, so the benchmark measures the service as
 * it is run: the environment it sets before `node` (`NAME=value` words, such as MALLOC_ARENA_MAX) and the Node flags
 * between `node` and `--import`.
 */
export async function startScript(): Promise<{ env: Record<string, string>; nodeFlags: string[] }> {
  const pkg = JSON.parse(await fs.readFile(path.join(here, '..', 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  const [command, ...rest] = words;
  if (command !== 'node') throw new Error(`npm start does not run node: ${pkg.scripts.start}`);
  const end = rest.indexOf('--import');
  return { env, nodeFlags: rest.slice(0, end === -1 ? rest.length : end).filter((w) => w.startsWith('--')) };
}

/**
 * Extra environment for the service process, to compare allocator settings in one sitting:
 * BENCH_SERVICE_ENV='MALLOC_ARENA_MAX= LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2' (an empty value unsets).
 */
export function serviceEnv(fromStartScript: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...fromStartScript };
  for (const word of (process.env.BENCH_SERVICE_ENV ?? '').split(' ').filter(Boolean)) {
    const [name, ...value] = word.split('=');
    if (value.join('=') === '') delete env[name!];
    else env[name!] = value.join('=');
  }
  delete env.BENCH_SERVICE_ENV;
  return env;
}
