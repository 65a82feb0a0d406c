// @run-alone: two real starts of the service with its own embedded database (PostGIS install, child processes killed), within 120 s (tests/runner/run-alone.mjs).
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import { existsSync, statSync, realpathSync } from 'node:fs';
import { spawn } from 'node:child_process';
import pg from 'pg';
import request from 'supertest';
import { pino } from 'pino';
import { loadConfig } from '../../src/platform/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { platform, startPlatform } from '../../src/platform/index.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/platform/embedded-db.js';
import { migrate } from '../../src/platform/migrate.js';
import { unique } from '../helpers/test-app.js';

/**
 * What a fresh machine gets from `npm start`: no DATABASE_URL and no JWT_SECRET. The embedded database
 * lives in DATA_DIR, and so does the generated signing key, so both survive a restart.
 * Two real starts of the service on one temporary DATA_DIR (the first one installs PostGIS: slow).
 */
const TWO_STARTS_MS = 120_000;

const MIGRATIONS_DIR = path.resolve('src/models/migrations');
let dataDir: string;
let server: RunningServer | null = null;

const start = () =>
  startServer(loadConfig({}, { NODE_ENV: 'test', PORT: 0, HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { jobs: false });

const user = { username: unique('persist'), password: 'correct-horse-battery' };
let firstLife: { accessToken: string; secret: string; userId: string; migrationFiles: string[]; migrationsRecorded: string[]; secondMigrateRun: string[] };

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-embedded-'));
  server = await start();
  expect(platform.embedded).not.toBeNull();
  const migrationFiles = (await fs.readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();

  const { rows } = await platform.database.pool.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
  const secondMigrateRun = await migrate(platform.database.pool, pino({ level: 'silent' }));

  const registered = await request(server.httpServer)
    .post('/api/auth/register/')
    .send({ email: `${user.username}@example.test`, username: user.username, display_name: 'Persistent', password: user.password });
  expect(registered.status).toBe(201);

  firstLife = {
    accessToken: registered.body.access_token,
    userId: registered.body.user.id,
    secret: await fs.readFile(path.join(dataDir, 'jwt-secret'), 'utf8'),
    migrationFiles,
    migrationsRecorded: rows.map((r) => r.name),
    secondMigrateRun,
  };
  await server.stop();
  server = await start();
}, TWO_STARTS_MS);

afterAll(async () => {
  await server?.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}, TWO_STARTS_MS);

describe('the embedded database', () => {
  test('when DATABASE_URL is unset, then the database files are kept under DATA_DIR/pglite', async () => {
    const entries = await fs.readdir(path.join(dataDir, 'pglite'));
    expect(entries.length).toBeGreaterThan(0);
  });

  test('when the service restarts on the same DATA_DIR, then a user registered before can log in', async () => {
    const res = await request(server!.httpServer).post('/api/auth/login/').send(user);
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: firstLife.userId, username: user.username });
  });
});

describe('the generated JWT secret', () => {
  test('when JWT_SECRET is unset, then a secret is generated into DATA_DIR and kept across the restart', async () => {
    expect(firstLife.secret.length).toBeGreaterThanOrEqual(32);
    expect(await fs.readFile(path.join(dataDir, 'jwt-secret'), 'utf8')).toBe(firstLife.secret);
    expect(platform.jwtSecret).toBe(firstLife.secret.trim());
  });

  test('when a token was issued before the restart, then it still authenticates after it', async () => {
    const res = await request(server!.httpServer).get('/api/users/profile/').set('Authorization', `Bearer ${firstLife.accessToken}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: firstLife.userId, username: user.username });
  });
});

describe('migrations', () => {
  test('when a fresh database starts, then every migration file is applied and recorded', async () => {
    expect(firstLife.migrationFiles.length).toBeGreaterThan(0);
    expect(firstLife.migrationsRecorded).toEqual(firstLife.migrationFiles);
  });

  test('when migrate runs again on a migrated database, then it applies nothing', async () => {
    expect(firstLife.secondMigrateRun).toEqual([]);
    expect(await migrate(platform.database.pool, pino({ level: 'silent' }))).toEqual([]);
  });
});

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Another process's exit cannot be awaited as an event from here: poll it, bounded by a deadline. */
async function waitUntilGone(pid: number, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return !isAlive(pid);
}

const pgliteDir = () => path.join(dataDir, 'pglite');
const lockFile = () => `${realpathSync(pgliteDir())}.lock`;
const START_MS = 60_000;

// Order matters below: the service started in beforeAll runs until the "after it stops" tests stop it.
describe('the embedded database process', () => {
  test('when the service runs, then the database runs in a process of its own', () => {
    const { pid } = platform.embedded as EmbeddedDatabase;
    expect(pid).toEqual(expect.any(Number));
    expect(pid).not.toBe(process.pid);
    expect(isAlive(pid)).toBe(true);
  });

  test('when the service runs, then the database listens on a 0600 unix socket in DATA_DIR, not on TCP', async () => {
    const socket = path.join(dataDir, '.s.PGSQL.5432');
    expect(statSync(socket).isSocket()).toBe(true);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    const client = new pg.Client({ host: dataDir, user: 'postgres', database: 'postgres' });
    await client.connect();
    try {
      const { rows } = await client.query<{ addr: string | null }>('SELECT inet_server_addr()::text AS addr');
      expect(rows[0].addr).toBeNull();
    } finally {
      await client.end();
    }
  });

  test('when a second start uses the same DATA_DIR while the first runs, then it is refused naming the lock and its owner', async () => {
    const owner = (platform.embedded as EmbeddedDatabase).pid;
    await expect(startEmbeddedDatabase({ dataDir: pgliteDir() })).rejects.toThrow(
      `${lockFile()} is held by process ${owner}: another instance is using this data directory`,
    );
    // The refused start did not disturb the running one.
    const res = await request(server!.httpServer).get('/health');
    expect(res.status).toBe(200);
  }, START_MS);

  test('when a migration fails at start, then the start is refused and the database process is stopped', async () => {
    const first = (platform.embedded as EmbeddedDatabase).pid;
    await server!.stop();
    expect(await waitUntilGone(first)).toBe(true);
    const badMigrations = await fs.mkdtemp(path.join(os.tmpdir(), 'hyperlocal-bad-migrations-'));
    await fs.writeFile(path.join(badMigrations, '0001_broken.sql'), 'CREATE TABLE broken (;');
    const config = loadConfig({}, { NODE_ENV: 'test', PORT: 0, HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    try {
      await expect(startPlatform(config, pino({ level: 'silent' }), { migrationsDir: badMigrations })).rejects.toThrow('Migration 0001_broken.sql failed');
    } finally {
      await fs.rm(badMigrations, { recursive: true, force: true });
    }
    expect(existsSync(lockFile())).toBe(false);
    // ...so the next start on this DATA_DIR succeeds.
    const again = await startEmbeddedDatabase({ dataDir: pgliteDir() });
    await again.stop();
    expect(isAlive(again.pid)).toBe(false);
    expect(existsSync(lockFile())).toBe(false);
  }, START_MS * 2);

  test('when the process that started the database is SIGKILLed, then the database process exits and frees DATA_DIR', async () => {
    const holder = spawn(process.execPath, ['--import', 'tsx/esm', 'tests/helpers/embedded-db-holder.ts', pgliteDir()], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      holder.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      holder.once('exit', (code) => reject(new Error(`holder exited with ${code} before the database was ready`)));
    });
    const { pid } = JSON.parse(line) as { pid: number };
    expect(isAlive(pid)).toBe(true);
    holder.kill('SIGKILL');
    expect(await waitUntilGone(pid)).toBe(true);
    // It stopped cleanly: its lock is gone and a start on the same DATA_DIR finds its data.
    expect(existsSync(lockFile())).toBe(false);
    const again = await startEmbeddedDatabase({ dataDir: pgliteDir() });
    try {
      const client = new pg.Client({ connectionString: again.connectionString });
      await client.connect();
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE id = $1', [firstLife.userId]);
      await client.end();
      expect(rows[0].n).toBe(1);
    } finally {
      await again.stop();
    }
  }, START_MS * 2);

  test('when DATA_DIR is too deep for a unix socket path, then the socket goes to a private directory under the system temp dir', async () => {
    // A symlink to the same data: the lock follows the real path, so it is still one database.
    const deep = path.join(dataDir, 'd'.repeat(60), 'e'.repeat(60));
    await fs.mkdir(deep, { recursive: true });
    await fs.symlink(pgliteDir(), path.join(deep, 'pglite'));
    const db = await startEmbeddedDatabase({ dataDir: path.join(deep, 'pglite') });
    let socketDir = '';
    try {
      socketDir = decodeURIComponent(new URL(db.connectionString).searchParams.get('host')!);
      expect(path.dirname(socketDir)).toBe(os.tmpdir());
      expect(statSync(socketDir).mode & 0o777).toBe(0o700);
      const client = new pg.Client({ connectionString: db.connectionString });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
    } finally {
      await db.stop();
    }
    expect(existsSync(socketDir)).toBe(false);
  }, START_MS);

  test('when the database process cannot open its data dir, then the start is rejected with its reason', async () => {
    const file = path.join(dataDir, 'not-a-directory');
    await fs.writeFile(file, '');
    await expect(startEmbeddedDatabase({ dataDir: path.join(file, 'pglite') })).rejects.toThrow(
      /^embedded database failed to start in .*not-a-directory\/pglite: .*ENOTDIR/,
    );
  }, START_MS);
});
