import path from 'node:path';
import { spawn } from 'node:child_process';
import { ConfigError, loadConfig } from '../../src/platform/config.js';

/** A bad setting stops the service at start with a message naming the variable. */
const problemsOf = (overrides: Record<string, string>) => {
  try {
    loadConfig({}, overrides);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
  throw new Error(`expected ${JSON.stringify(overrides)} to be refused`);
};

describe('configuration', () => {
  test('when nothing is set, then the documented defaults apply', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 8000, DATA_DIR: './data', CORS_ORIGINS: '*', SHUTDOWN_GRACE_MS: 10000 });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.JWT_SECRET).toBeUndefined();
    expect(config.dataDir).toBe(path.resolve('./data'));
  });

  test('when a variable is set to an empty string, then it counts as unset', () => {
    const config = loadConfig({ DATABASE_URL: '', REDIS_URL: '', JWT_SECRET: '', SMTP_URL: '', ADMIN_EMAIL: '' });
    expect(config).toMatchObject({ DATABASE_URL: undefined, REDIS_URL: undefined, JWT_SECRET: undefined, SMTP_URL: undefined, ADMIN_EMAIL: undefined });
  });

  test.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'localhost'],
    ['PUBLIC_BASE_URL', 'example.com/api'],
    ['ADMIN_EMAIL', 'root-at-localhost'],
    ['SHUTDOWN_GRACE_MS', '-5'],
    ['ACCESS_TOKEN_LIFETIME_SECONDS', '1.5'],
  ])('when %s is %p, then the error names %s', (name, value) => {
    expect(problemsOf({ [name]: value })).toMatch(new RegExp(`^Invalid configuration: .*\\b${name}: `));
  });

  test('when several variables are wrong, then every one of them is named', () => {
    const message = problemsOf({ PORT: 'x', REDIS_URL: 'nope' });
    expect(message).toContain('PORT: ');
    expect(message).toContain('REDIS_URL: ');
  });

  test('when npm start meets a bad variable, then it exits with status 1 and names the variable, without a stack trace', async () => {
    const tsx = path.resolve('node_modules/.bin/tsx');
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(tsx, ['src/main.ts'], { env: { PATH: process.env.PATH, PORT: 'eighty', DATA_DIR: '/nonexistent/never-used' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('close', (exitCode) => resolve({ code: exitCode, stderr }));
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Invalid configuration: PORT: /m);
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 30_000);
});
