import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { operations } from '../../src/registry.js';
import { defineOperation, ok } from '../../src/core/operation.js';
import { platform } from '../../src/platform/index.js';
import { transaction } from '../../src/platform/db.js';

/**
 * Two requests that lock the same rows in opposite orders deadlock; PostgreSQL ends one of the two transactions.
 * The loser is rolled back whole and answers 503 with Retry-After (try again), never a 500; the winner commits.
 */
const lockInOrder = defineOperation({
  name: 'test.lock_in_order',
  method: 'POST',
  path: '/api/test/lock-in-order/',
  auth: 'public',
  summary: 'Locks two rows of a scratch table in the order given, pausing between them',
  tags: ['test'],
  input: z.object({ first: z.number().int(), second: z.number().int() }),
  handler: async (input) => {
    await transaction(platform.db, async (tx) => {
      await tx.execute(sql`UPDATE test_deadlock_rows SET touched = touched + 1 WHERE id = ${input.first}`);
      await tx.execute(sql`SELECT pg_sleep(0.3)`);
      await tx.execute(sql`UPDATE test_deadlock_rows SET touched = touched + 1 WHERE id = ${input.second}`);
    });
    return ok({ locked: true });
  },
});

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ DATABASE_POOL_MAX: '4' }, { operations: [...operations, lockInOrder] });
  await platform.db.execute(sql`CREATE TABLE IF NOT EXISTS test_deadlock_rows (id int PRIMARY KEY, touched int NOT NULL DEFAULT 0)`);
  await platform.db.execute(sql`INSERT INTO test_deadlock_rows (id) VALUES (1), (2) ON CONFLICT (id) DO UPDATE SET touched = 0`);
});
afterAll(async () => {
  await platform.db.execute(sql`DROP TABLE IF EXISTS test_deadlock_rows`);
  await app.stop();
});

// The embedded database serves every connection from one session, one statement at a time: no two transactions
// ever hold locks at once there, so it cannot deadlock.
(process.env.TEST_EMBEDDED ? test.skip : test)('when two requests lock the same rows in opposite orders, then one commits and the other answers 503 with Retry-After, its writes undone', async () => {
  const [a, b] = await Promise.all([
    app.rest('POST', '/api/test/lock-in-order/', { body: { first: 1, second: 2 } }),
    app.rest('POST', '/api/test/lock-in-order/', { body: { first: 2, second: 1 } }),
  ]);
  const answers = [a, b].map((r) => r.status).sort();
  expect(answers).toEqual([200, 503]);
  const loser = a.status === 503 ? a : b;
  expect(loser.body).toEqual({ detail: 'Service temporarily unavailable, try again later.' });
  expect(loser.headers['retry-after']).toBe('5');
  // Only the winner's two updates remain.
  const { rows } = await platform.db.execute<{ total: number }>(sql`SELECT sum(touched)::int AS total FROM test_deadlock_rows`);
  expect(rows[0].total).toBe(2);
  // Over the socket the same loser answer.
  const [c, d] = await Promise.all([
    app.emit('test.lock_in_order', { first: 1, second: 2 }),
    app.emit('test.lock_in_order', { first: 2, second: 1 }),
  ]);
  expect([c, d].map((r) => r.status).sort()).toEqual([200, 503]);
  expect([c, d].find((r) => r.status === 503)).toEqual({ status: 503, body: { detail: 'Service temporarily unavailable, try again later.' } });
});
