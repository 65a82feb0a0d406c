import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { detectNamedStatements } from '../../src/platform/db.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/platform/embedded-db.js';
import { startTestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { platform } from '../../src/platform/index.js';

/**
 * Named prepared statements (the caller lookup of every request, a feed page) are used only where each connection is
 * a session of its own. PGlite serves all connections from one session: a name prepared through one connection
 * already exists for the next, and every signed-in request after the first pool would answer 500. The choice is
 * made from the database itself, since a PGlite may be reached through a plain URL (the test run's shared database
 * when TEST_DATABASE_URL is unset).
 */
describe('named prepared statements', () => {
  let dir: string;
  let embedded: EmbeddedDatabase;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-named-'));
    embedded = await startEmbeddedDatabase({ dataDir: path.join(dir, 'pglite') });
  }, 120_000);
  afterAll(async () => {
    await embedded?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  test('when the database behind a URL is PGlite, then they are off; on a PostgreSQL server they are on', async () => {
    const pglite = new pg.Pool({ connectionString: embedded.connectionString, max: 1 });
    try {
      expect(await detectNamedStatements(pglite)).toBe(false);
    } finally {
      await pglite.end();
    }
    const testDb = new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 1 });
    try {
      expect(await detectNamedStatements(testDb)).toBe(!process.env.TEST_EMBEDDED);
    } finally {
      await testDb.end();
    }
  });

  test('when two services in turn reach one PGlite through its URL, then signed-in requests work on both', async () => {
    for (let round = 0; round < 2; round++) {
      const app = await startTestApp({ DATABASE_URL: embedded.connectionString, DATABASE_POOL_MAX: '1' });
      try {
        expect(platform.database.namedStatements).toBe(false);
        const user = await aUser(app);
        const profile = await app.rest('GET', '/api/users/profile/', { token: user.token });
        expect({ round, status: profile.status }).toEqual({ round, status: 200 });
      } finally {
        await app.stop();
      }
    }
  }, 120_000);
});
