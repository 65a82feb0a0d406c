import { execFileSync } from 'node:child_process';
import { defaultLogFormat } from '../../src/platform/logger.js';

/** Log one line in a child process (pino writes to file descriptor 1 directly) and return what it printed. */
function logOnce(format: string): string {
  const script = `import { createLogger } from './src/platform/logger.ts'; createLogger('info', '${format}').info({ port: 8000 }, 'listening');`;
  return execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
}

describe('logs', () => {
  test('a terminal gets human-readable lines by default, a pipe or a file gets JSON', () => {
    expect(defaultLogFormat(true)).toBe('pretty');
    expect(defaultLogFormat(false)).toBe('json');
  });

  test('the pretty format prints a readable line, not JSON', () => {
    const out = logOnce('pretty');
    expect(out).toMatch(/INFO.*listening/);
    expect(out).toContain('port: 8000');
    expect(() => JSON.parse(out)).toThrow();
  });

  test('the JSON format prints one object per line', () => {
    const line = JSON.parse(logOnce('json').trim());
    expect(line).toMatchObject({ level: 30, msg: 'listening', port: 8000 });
  });
});
