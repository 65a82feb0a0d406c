import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs/promises';
import request from 'supertest';
import { pino } from 'pino';
import { loadConfig } from '../../src/platform/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { platform } from '../../src/platform/index.js';
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
