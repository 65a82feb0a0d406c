import { pino } from 'pino';
import type pg from 'pg';
import { sql } from 'drizzle-orm';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { platform } from '../../src/platform/index.js';
import { transaction, openDatabase, type Database } from '../../src/platform/db.js';
import { enqueue, GiveUp, OutboxWorker, defineOutboxHandler, outboxClock, type OutboxHandler, type OutboxJob } from '../../src/platform/outbox.js';

/**
 * The one outbox (DESIGN.md section 4, src/platform/outbox.ts), with throwaway kinds of work. Each test's workers
 * run only its own kind, so the app's own worker and the other tests never take its rows.
 */
declare module '../../src/platform/outbox.js' {
  interface OutboxPayloads {
    [kind: `test.${string}`]: { n: number };
  }
}

const METRICS_TOKEN = 'metrics-token-for-the-outbox-tests-0123';
const silent = pino({ level: 'silent' });
let app: TestApp;
/** A second pool on the same database: a second node's connections. */
let otherNode: Database;
const workers: OutboxWorker[] = [];
const realNow = outboxClock.now;

// The embedded database (TEST_EMBEDDED) serves one connection: there is no second node on it, in production as here,
// so the tests that need one run against a server database only.
const EMBEDDED = Boolean(process.env.TEST_EMBEDDED);
const withSecondNode = EMBEDDED ? test.skip : test;
// Named statements: a server database's only (PGlite shares one session between its connections).
const onServer = EMBEDDED ? test.skip : test;

beforeAll(async () => {
  app = await startTestApp({ METRICS_TOKEN });
  if (!EMBEDDED) otherNode = openDatabase(process.env.TEST_DATABASE_URL!, { poolMax: 3, log: silent });
});
afterEach(async () => {
  outboxClock.now = realNow;
  await Promise.all(workers.splice(0).map((w) => w.stop(1000)));
});
afterAll(async () => {
  await otherNode?.close();
  await app.stop();
});

let kinds = 0;
/** A fresh kind per test, whose runs are recorded. */
function aKind(overrides: Partial<OutboxHandler> = {}, run?: (payload: { n: number }, job: OutboxJob) => Promise<unknown>) {
  const kind = `test.outbox${++kinds}.${Date.now()}` as `test.${string}`;
  const runs: Array<{ n: number; job: OutboxJob }> = [];
  const handler = defineOutboxHandler({
    kind,
    maxInFlight: 8,
    leaseMs: 60_000,
    retryDelaysMs: [5000, 60_000],
    run: async (payload: { n: number }, job: OutboxJob) => {
      runs.push({ n: payload.n, job });
      return run?.(payload, job);
    },
    ...overrides,
  } as unknown as OutboxHandler);
  return { kind, handler, runs };
}

function aWorker(handlers: OutboxHandler[], db = platform.db, pollMs = 60_000): OutboxWorker {
  const worker = new OutboxWorker(handlers, { db, log: silent, pollMs, maxInFlight: 16 });
  workers.push(worker);
  return worker;
}

const rowsOf = async (kind: string) =>
  (await platform.db.execute<{ attempts: number; run_at: string; failed_at: string | null; last_error: string | null; locked_until: string | null }>(sql`
    SELECT attempts, run_at::text, failed_at::text, last_error, locked_until::text FROM outbox WHERE kind = ${kind} ORDER BY id`)).rows;

const until = async (check: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('enqueue in a transaction', () => {
  test('when the transaction rolls back, then no row is left and nothing runs', async () => {
    const { kind, handler, runs } = aKind();
    const worker = aWorker([handler]);
    worker.start();
    await expect(
      transaction(platform.db, async (tx) => {
        await enqueue(tx, kind, { n: 1 });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await worker.settle();
    expect(runs).toEqual([]);
    expect(await rowsOf(kind)).toEqual([]);
  });

  test('when it commits, then the worker of the node runs it right after the commit (no poll needed), once, and deletes the row', async () => {
    const { kind, handler, runs } = aKind();
    aWorker([handler]).start(); // polls once a minute: only the after-commit wake-up can be this fast
    await transaction(platform.db, async (tx) => {
      await enqueue(tx, kind, { n: 7 });
      // Not before the commit: the row is invisible to the worker and the wake-up waits for COMMIT.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(runs).toEqual([]);
    });
    await until(() => runs.length === 1);
    expect(runs[0].n).toBe(7);
    expect(runs[0].job.attempt).toBe(1);
    await until(() => false, 100).catch(() => undefined);
    expect(runs).toHaveLength(1);
    expect(await rowsOf(kind)).toEqual([]);
  });

  test('when a kind gathers (gatherMs), then rows committed within that time are claimed together, after the last of them', async () => {
    let committed = 0;
    const seenCommitted: number[] = [];
    const { kind, handler, runs } = aKind({ gatherMs: 1000 }, async () => {
      seenCommitted.push(committed);
    });
    aWorker([handler]).start();
    // Past the claim a start makes (any earlier claim takes what is due: gathering only ever waits less).
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let n = 1; n <= 3; n++) {
      await transaction(platform.db, async (tx) => {
        await enqueue(tx, kind, { n });
      });
      committed++;
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await until(() => runs.length === 3);
    // Without gathering, the first row would have run about 10 ms after its commit, before the others existed.
    expect(seenCommitted).toEqual([3, 3, 3]);
  });

  test('when a gathering kind waits, then a row of another kind committed meanwhile is not held back by it', async () => {
    const gathering = aKind({ gatherMs: 30_000 });
    const plain = aKind();
    aWorker([gathering.handler, plain.handler]).start();
    await transaction(platform.db, async (tx) => {
      await enqueue(tx, gathering.kind, { n: 1 });
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await transaction(platform.db, async (tx) => {
      await enqueue(tx, plain.kind, { n: 2 });
    });
    // The earlier claim the plain row asks for takes both: nothing waits the gathering kind's 30 s.
    await until(() => plain.runs.length === 1 && gathering.runs.length === 1, 5000);
  });

  test('when a commit wakes the worker, then only its kind is claimed; a row of another kind written without a wake-up (on another node) is found by the poll', async () => {
    const woken = aKind();
    const other = aKind();
    const worker = aWorker([woken.handler, other.handler]); // polls once a minute
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 50)); // past the claim of every kind a start makes
    // As another node's commit: a due row, and no wake-up here.
    await platform.db.execute(sql`INSERT INTO outbox (kind, payload) VALUES (${other.kind}, '{"n": 2}'::jsonb)`);
    await transaction(platform.db, async (tx) => {
      await enqueue(tx, woken.kind, { n: 1 });
    });
    await until(() => woken.runs.length === 1);
    // Claiming every kind at each wake-up would have run it too (one statement per kind, most finding nothing).
    await until(() => false, 200).catch(() => undefined);
    expect(other.runs).toEqual([]);
    worker.wake(); // what the poll does
    await until(() => other.runs.length === 1);
    expect(other.runs[0].n).toBe(2);
  });
});

describe('records of finished work (a handler\'s finish)', () => {
  const records = async (kind: string) =>
    (await platform.db.execute<{ n: number }>(sql`SELECT n FROM outbox_test_records WHERE kind = ${kind} ORDER BY n`)).rows.map((r) => r.n);
  beforeAll(async () => {
    await platform.db.execute(sql`CREATE TABLE IF NOT EXISTS outbox_test_records (kind text NOT NULL, n int NOT NULL)`);
  });

  test('when runs resolve to values, then finish records them in the statement that deletes their rows: both happen, together', async () => {
    const { kind, handler } = aKind(
      { finish: (values: number[]) => sql`INSERT INTO outbox_test_records (kind, n) SELECT ${kind}, unnest(${sql.param(values)}::int[])` } as unknown as Partial<OutboxHandler>,
      async (payload) => payload.n * 10,
    );
    await transaction(platform.db, async (tx) => {
      for (let n = 1; n <= 5; n++) await enqueue(tx, kind, { n });
    });
    await aWorker([handler]).settle();
    expect(await records(kind)).toEqual([10, 20, 30, 40, 50]);
    expect(await rowsOf(kind)).toEqual([]);
  });

  onServer('when the worker may name its statements, then their texts do not grow with the number of finished rows: each is planned once per connection', async () => {
    const sent: Array<{ name?: string; text: string }> = [];
    const pool = platform.database.pool;
    const recording = { query: (config: { name?: string; text: string }) => (sent.push(config), pool.query(config)) } as unknown as pg.Pool;
    const { kind, handler } = aKind(
      { finish: (values: number[]) => sql`INSERT INTO outbox_test_records (kind, n) SELECT ${kind}, unnest(${sql.param(values)}::int[])` } as unknown as Partial<OutboxHandler>,
      async (payload) => payload.n,
    );
    const worker = new OutboxWorker([handler], { db: platform.db, log: silent, pollMs: 60_000, maxInFlight: 16, namedStatementsPool: recording });
    workers.push(worker);
    const round = async (from: number, count: number) => {
      await transaction(platform.db, async (tx) => {
        for (let n = from; n < from + count; n++) await enqueue(tx, kind, { n });
      });
      await worker.settle();
      return new Set(sent.map((s) => s.text)).size;
    };
    await round(1, 1);
    const texts = await round(2, 3);
    // Five finished rows at once: statements of the same texts as one or three.
    expect(await round(5, 5)).toBe(texts);
    expect(sent.every((s) => typeof s.name === 'string')).toBe(true);
    expect(await records(kind)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await rowsOf(kind)).toEqual([]);
  });

  test('when a handler has load, then each run gets the row its query reads for the claimed payload, read by the claim', async () => {
    await platform.db.execute(sql`INSERT INTO outbox_test_records (kind, n) VALUES ('load', 41), ('load', 42)`);
    const seen: Array<Record<string, unknown> | null> = [];
    const { kind, handler } = aKind(
      { load: (payload: unknown) => sql`SELECT n, n * 2 AS doubled FROM outbox_test_records WHERE kind = 'load' AND n = (${payload}->>'n')::int` } as unknown as Partial<OutboxHandler>,
      async (_payload, job) => {
        seen.push(job.loaded);
      },
    );
    await transaction(platform.db, async (tx) => {
      await enqueue(tx, kind, { n: 42 });
      await enqueue(tx, kind, { n: 7 }); // reads nothing
    });
    await aWorker([handler]).settle();
    expect(seen).toEqual([{ n: 42, doubled: 84 }, null]);
  });

  test('when the record cannot be written, then the row stays to run again after its lease, and other work goes on', async () => {
    let now = Date.now();
    outboxClock.now = () => new Date(now);
    const failing = aKind({ finish: () => sql`INSERT INTO outbox_test_records (kind, n) SELECT 'never', 1 / 0` } as unknown as Partial<OutboxHandler>, async () => 1);
    const plain = aKind();
    await transaction(platform.db, async (tx) => {
      await enqueue(tx, failing.kind, { n: 1 });
    });
    const worker = aWorker([failing.handler, plain.handler]);
    await worker.settle();
    expect(failing.runs).toHaveLength(1);
    expect(await rowsOf(failing.kind)).toEqual([expect.objectContaining({ attempts: 1, failed_at: null, locked_until: expect.any(String) })]);
    // The claims that would have carried the record keep working.
    await transaction(platform.db, async (tx) => {
      await enqueue(tx, plain.kind, { n: 2 });
    });
    await worker.settle();
    expect(plain.runs.map((r) => r.n)).toEqual([2]);
    expect(await rowsOf(plain.kind)).toEqual([]);
    // Once the lease is over, it runs again (at least once).
    now += 61_000;
    await worker.settle();
    expect(failing.runs.map((r) => r.job.attempt)).toEqual([1, 2]);
  });
});

describe('two nodes drain one outbox', () => {
  withSecondNode('when two workers on separate connection pools poll the same rows, then each row runs exactly once', async () => {
    const first = aKind({}, () => new Promise((resolve) => setTimeout(resolve, 5)));
    const count = 60;
    await transaction(platform.db, async (tx) => {
      for (let n = 0; n < count; n++) await enqueue(tx, first.kind, { n });
    });
    const a = aWorker([first.handler], platform.db, 5);
    const b = aWorker([first.handler], otherNode.db, 5);
    a.start();
    b.start();
    await until(() => first.runs.length >= count);
    await Promise.all([a.settle(), b.settle()]);
    const seen = first.runs.map((r) => r.n).sort((x, y) => x - y);
    expect(seen).toEqual(Array.from({ length: count }, (_, n) => n));
    expect(await rowsOf(first.kind)).toEqual([]);
  });
});

describe('retries, giving up and leases', () => {
  test('when a run fails, then it is retried after the handler delays by the outbox clock, and given up after the last one', async () => {
    let now = new Date('2030-01-01T00:00:00Z').getTime();
    outboxClock.now = () => new Date(now);
    const gaveUp: OutboxJob[] = [];
    const { kind, handler, runs } = aKind({ onGiveUp: async (_p: unknown, job: OutboxJob) => void gaveUp.push(job) } as Partial<OutboxHandler>, async () => {
      throw new Error('receiver down');
    });
    await enqueue(platform.db, kind, { n: 1 });
    const worker = aWorker([handler]);

    await worker.settle();
    expect(runs.map((r) => r.job.attempt)).toEqual([1]);
    expect(runs[0].job.retryAt?.toISOString()).toBe('2030-01-01T00:00:05.000Z');
    const [afterFirst] = await rowsOf(kind);
    expect(afterFirst).toMatchObject({ attempts: 1, failed_at: null, last_error: 'receiver down', locked_until: null });
    expect(new Date(afterFirst.run_at).toISOString()).toBe('2030-01-01T00:00:05.000Z');

    now += 4000; // not yet due
    await worker.settle();
    expect(runs).toHaveLength(1);
    now += 1000;
    await worker.settle();
    expect(runs.map((r) => r.job.attempt)).toEqual([1, 2]);
    now += 60_000;
    await worker.settle();
    expect(runs.map((r) => r.job.attempt)).toEqual([1, 2, 3]);
    expect(runs[2].job.retryAt).toBeNull();
    const [last] = await rowsOf(kind);
    expect(last.failed_at).not.toBeNull();
    expect(gaveUp).toHaveLength(1);
    now += 24 * 3600_000;
    await worker.settle();
    expect(runs).toHaveLength(3);
  });

  test('when a handler throws GiveUp, then it is not retried', async () => {
    const { kind, handler, runs } = aKind({}, async () => {
      throw new GiveUp('gone');
    });
    await enqueue(platform.db, kind, { n: 1 });
    const worker = aWorker([handler]);
    await worker.settle();
    outboxClock.now = () => new Date(Date.now() + 3600_000);
    await worker.settle();
    expect(runs).toHaveLength(1);
    expect((await rowsOf(kind))[0]).toMatchObject({ last_error: 'gone' });
    expect((await rowsOf(kind))[0].failed_at).not.toBeNull();
  });

  withSecondNode('when the node that claimed a row dies before finishing it, then the row is claimable again once its lease runs out, and not before', async () => {
    let now = Date.now();
    outboxClock.now = () => new Date(now);
    const { kind, handler, runs } = aKind({ leaseMs: 30_000 });
    await enqueue(platform.db, kind, { n: 1 });
    // The dead node: it claimed the row (attempt 1) and never came back.
    await platform.db.execute(sql`
      UPDATE outbox SET attempts = 1, locked_by = 'dead-node', locked_until = ${new Date(now + 30_000).toISOString()}::timestamptz WHERE kind = ${kind}`);
    const survivor = aWorker([handler], otherNode.db);
    await survivor.settle();
    expect(runs).toEqual([]);
    now += 31_000;
    await survivor.settle();
    expect(runs).toHaveLength(1);
    expect(runs[0].job.attempt).toBe(2);
    expect(await rowsOf(kind)).toEqual([]);
  });
});

describe('bounds on work in flight', () => {
  test('when rows share a key, then at most maxInFlightPerKey of them run at once, and maxInFlight bounds the kind', async () => {
    let running = 0;
    let most = 0;
    const release: Array<() => void> = [];
    const { kind, handler, runs } = aKind({ maxInFlightPerKey: 1, maxInFlight: 2 }, async () => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => release.push(resolve));
      running--;
    });
    await transaction(platform.db, async (tx) => {
      for (let n = 0; n < 3; n++) await enqueue(tx, kind, { n }, { key: 'endpoint-a' });
      for (let n = 3; n < 6; n++) await enqueue(tx, kind, { n }, { key: `endpoint-${n}` });
    });
    const worker = aWorker([handler], platform.db, 10);
    worker.start();
    await until(() => running === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(running).toBe(2);
    // Of the first claim, endpoint-a got one run only.
    expect(runs.filter((r) => r.n < 3)).toHaveLength(1);
    while (runs.length < 6 || running > 0) {
      release.splice(0).forEach((r) => r());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(most).toBe(2);
    expect(runs.map((r) => r.n).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  test('when one kind floods the node, then it takes at most three quarters of OUTBOX_MAX_IN_FLIGHT and another kind still runs meanwhile', async () => {
    const release: Array<() => void> = [];
    let running = 0;
    const flood = aKind({ maxInFlight: 64 }, async () => {
      running++;
      await new Promise<void>((resolve) => release.push(resolve));
      running--;
    });
    const other = aKind();
    await transaction(platform.db, async (tx) => {
      for (let n = 0; n < 20; n++) await enqueue(tx, flood.kind, { n });
    });
    const worker = new OutboxWorker([flood.handler, other.handler], { db: platform.db, log: silent, pollMs: 10, maxInFlight: 8 });
    workers.push(worker);
    worker.start();
    await until(() => running === 6);
    await transaction(platform.db, async (tx) => enqueue(tx, other.kind, { n: 100 }));
    // The flood's runs are all still waiting: the other kind runs in the room they leave.
    await until(() => other.runs.length === 1);
    expect(running).toBe(6);
    while (flood.runs.length < 20 || running > 0) {
      release.splice(0).forEach((r) => r());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(flood.runs).toHaveLength(20);
  });
});

describe('/metrics', () => {
  test('rows queued, in flight and failed, and the age of the oldest, are reported per kind', async () => {
    const { kind } = aKind();
    await enqueue(platform.db, kind, { n: 1 });
    await platform.db.execute(sql`UPDATE outbox SET created_at = now() - interval '120 seconds' WHERE kind = ${kind}`);
    await enqueue(platform.db, kind, { n: 2 });
    await platform.db.execute(sql`
      INSERT INTO outbox (kind, payload, failed_at, attempts) VALUES (${kind}, '{"n":3}', now(), 3)`);
    const res = await app.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(res.status).toBe(200);
    const value = (series: string) => Number(res.text.split('\n').find((l) => l.startsWith(series + ' '))?.slice(series.length + 1));
    expect(value(`hyperlocal_outbox_rows{kind="${kind}",state="queued"}`)).toBe(2);
    expect(value(`hyperlocal_outbox_rows{kind="${kind}",state="in_flight"}`)).toBe(0);
    expect(value(`hyperlocal_outbox_rows{kind="${kind}",state="failed"}`)).toBe(1);
    expect(value(`hyperlocal_outbox_oldest_age_seconds{kind="${kind}"}`)).toBeGreaterThanOrEqual(119);
    await platform.db.execute(sql`DELETE FROM outbox WHERE kind = ${kind}`);
  });
});
