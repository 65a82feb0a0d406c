// @run-alone: it asserts how soon a stuck transaction is cut off (4 s, 5 s) (tests/runner/run-alone.mjs).
import { z } from 'zod';
import { eq, sql as dsql } from 'drizzle-orm';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { operations } from '../../src/registry.js';
import { defineOperation, ok } from '../../src/core/operation.js';
import { domainEvents, type DomainEvent } from '../../src/core/events.js';
import { platform } from '../../src/platform/index.js';
import { currentDb, transaction } from '../../src/platform/db.js';
import { users } from '../../src/models/index.js';
import { findUserById } from '../../src/modules/users/users.queries.js';
import { loadConfig } from '../../src/platform/config.js';

declare module '../../src/core/events.js' {
  interface DomainEventMap {
    /** Test-only: an event no transport routes, to watch when pending events are published. */
    'test.tx_probe': { label: string };
  }
}

/**
 * Transactions carried in AsyncLocalStorage (platform/db.ts): helpers default to the current transaction,
 * nested calls run in a savepoint of the outer one, events publish once after the outermost COMMIT, and
 * nothing waits forever for the database. The app runs with a pool of ONE connection (like the embedded
 * database) and short timeouts, so a query that escapes its transaction fails fast instead of hanging.
 */
const sleepOp = defineOperation({
  name: 'test.db_sleep',
  method: 'POST',
  path: '/api/test/db-sleep/',
  auth: 'public',
  summary: 'One statement that runs for 5 s',
  tags: ['test'],
  input: z.object({}),
  handler: async () => {
    await platform.db.execute(dsql`SELECT pg_sleep(5)`);
    return ok({ slept: true });
  },
});

const escapeOp = defineOperation({
  name: 'test.escape_transaction',
  method: 'POST',
  path: '/api/test/escape-transaction/',
  auth: 'public',
  summary: 'Inside a transaction, queries through the pool itself (the bug a forgotten tx used to be)',
  tags: ['test'],
  input: z.object({}),
  handler: async () => {
    await transaction(platform.db, async (tx) => {
      await tx.execute(dsql`SELECT 1`);
      await platform.db.execute(dsql`SELECT 1`);
    });
    return ok({ escaped: true });
  },
});

const STATEMENT_TIMEOUT_MS = 300;
const CONNECT_TIMEOUT_MS = 500;
let app: TestApp;
const published: DomainEvent[] = [];
let stopListening: () => void;
beforeAll(async () => {
  app = await startTestApp(
    { DATABASE_POOL_MAX: '1', DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS), DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS) },
    { operations: [...operations, sleepOp, escapeOp] },
  );
  stopListening = domainEvents.subscribe((e) => published.push(e));
});
afterAll(async () => {
  stopListening();
  await app.stop();
});

const probes = () => published.filter((e) => e.name === 'test.tx_probe').map((e) => (e.payload as { label: string }).label);
const displayNameOf = async (id: string) => (await platform.db.select({ name: users.displayName }).from(users).where(eq(users.id, id)))[0].name;
class Rollback extends Error {}

describe('transaction() and currentDb()', () => {
  test('when a query helper is called inside a transaction without its tx, then it sees the uncommitted write (and nothing leaks after rollback)', async () => {
    const alice = await aUser(app);
    const seen = await transaction(platform.db, async (tx) => {
      await tx.update(users).set({ displayName: 'Inside the transaction' }).where(eq(users.id, alice.id));
      return (await findUserById(alice.id))?.displayName;
    });
    expect(seen).toBe('Inside the transaction');

    await expect(
      transaction(platform.db, async (tx) => {
        await tx.update(users).set({ displayName: 'Rolled back' }).where(eq(users.id, alice.id));
        expect((await findUserById(alice.id))?.displayName).toBe('Rolled back');
        throw new Rollback();
      }),
    ).rejects.toBeInstanceOf(Rollback);
    expect(await displayNameOf(alice.id)).toBe('Inside the transaction');
  });

  // The pool has one connection: a nested call that asked the pool for a second one would fail after the connect timeout.
  test('when transaction() is called inside another, then it joins it: same connection, both writes commit together', async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    await transaction(platform.db, async (tx) => {
      await tx.update(users).set({ displayName: 'Outer write' }).where(eq(users.id, alice.id));
      await transaction(platform.db, async (inner) => {
        expect((await findUserById(alice.id, inner))?.displayName).toBe('Outer write');
        await inner.update(users).set({ displayName: 'Inner write' }).where(eq(users.id, bob.id));
      });
      expect((await findUserById(bob.id))?.displayName).toBe('Inner write');
    });
    expect(await displayNameOf(alice.id)).toBe('Outer write');
    expect(await displayNameOf(bob.id)).toBe('Inner write');
  });

  test('when a nested transaction fails and the outer one catches it, then only the nested writes and events are rolled back', async () => {
    const alice = await aUser(app);
    published.length = 0;
    await transaction(platform.db, async (tx, events) => {
      events.add('test.tx_probe', { label: 'outer' });
      await tx.update(users).set({ displayName: 'Kept' }).where(eq(users.id, alice.id));
      await expect(
        transaction(platform.db, async (inner, innerEvents) => {
          innerEvents.add('test.tx_probe', { label: 'failed inner' });
          await inner.update(users).set({ bio: 'discarded' }).where(eq(users.id, alice.id));
          throw new Rollback();
        }),
      ).rejects.toBeInstanceOf(Rollback);
    });
    expect(probes()).toEqual(['outer']);
    const [row] = await platform.db.select({ name: users.displayName, bio: users.bio }).from(users).where(eq(users.id, alice.id));
    expect(row).toEqual({ name: 'Kept', bio: '' });
  });

  test('when nested transactions raise events, then they are published once, after the outermost COMMIT, in order', async () => {
    published.length = 0;
    await transaction(platform.db, async (_tx, events) => {
      events.add('test.tx_probe', { label: 'outer before' });
      await transaction(platform.db, async (_inner, innerEvents) => {
        innerEvents.add('test.tx_probe', { label: 'inner' });
        await transaction(platform.db, async (_innermost, innermostEvents) => innermostEvents.add('test.tx_probe', { label: 'innermost' }));
      });
      expect(probes()).toEqual([]);
      events.add('test.tx_probe', { label: 'outer after' });
    });
    expect(probes()).toEqual(['outer before', 'inner', 'innermost', 'outer after']);
  });

  test('when the outer transaction rolls back, then no event of it or of its nested transactions is published', async () => {
    published.length = 0;
    await expect(
      transaction(platform.db, async (_tx, events) => {
        events.add('test.tx_probe', { label: 'outer' });
        await transaction(platform.db, async (_inner, innerEvents) => innerEvents.add('test.tx_probe', { label: 'inner' }));
        throw new Rollback();
      }),
    ).rejects.toBeInstanceOf(Rollback);
    expect(probes()).toEqual([]);
  });

  test('when a promise started inside a transaction outlives it, then currentDb() gives it the pool, not the finished transaction', async () => {
    let openTheGate!: () => void;
    const gate = new Promise<void>((resolve) => (openTheGate = resolve));
    let afterwards!: Promise<unknown>;
    await transaction(platform.db, async (tx) => {
      expect(currentDb()).toBe(tx);
      // The continuation inherits the transaction's async context, but runs once the transaction has ended.
      afterwards = gate.then(() => currentDb());
    });
    openTheGate();
    expect(await afterwards).toBe(platform.db);
  });
});

describe('timeouts: nothing waits forever', () => {
  test('when the settings are not given, then the documented defaults apply', () => {
    expect(loadConfig({})).toMatchObject({ DATABASE_CONNECT_TIMEOUT_MS: 10000, DATABASE_STATEMENT_TIMEOUT_MS: 15000, DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: 30000 });
  });

  test('when code inside a transaction queries through the pool while the transaction holds its only connection, then 503 after the connect timeout, not a hang', async () => {
    const started = Date.now();
    const res = await app.rest('POST', '/api/test/escape-transaction/');
    expect(res).toMatchObject({ status: 503, body: { detail: 'Service temporarily unavailable, try again later.' } });
    expect(res.headers['retry-after']).toBe('5');
    expect(Date.now() - started).toBeLessThan(5000);
    // The connection came back: the service still answers.
    expect((await app.rest('GET', '/health')).status).toBe(200);
  });

  // PGlite implements no statement_timeout (no timer signals in WebAssembly): the embedded database
  // relies on the connect timeout above.
  (process.env.TEST_EMBEDDED ? test.skip : test)('when a statement runs longer than DATABASE_STATEMENT_TIMEOUT_MS, then it is cancelled and the answer is 503 on both transports', async () => {
    const started = Date.now();
    const rest = await app.rest('POST', '/api/test/db-sleep/');
    expect(Date.now() - started).toBeLessThan(4000);
    expect(rest).toMatchObject({ status: 503, body: { detail: 'Service temporarily unavailable, try again later.' } });
    const socket = await app.emit('test.db_sleep', {});
    expect(socket).toEqual({ status: 503, body: { detail: 'Service temporarily unavailable, try again later.' } });
  });
});

describe('server connections', () => {
  // PGlite has no JIT (and shares one session, so it takes no startup parameters): server databases only.
  // This file's app has a pool of one connection: what it answers is what every connection of a pool is opened with.
  (process.env.TEST_EMBEDDED ? test.skip : test)('a connection of the pool runs with JIT off, so no short statement pays a JIT compilation', async () => {
    const { rows } = await platform.db.execute<{ jit: string }>(dsql`SHOW jit`);
    expect(rows[0].jit).toBe('off');
  });
});
