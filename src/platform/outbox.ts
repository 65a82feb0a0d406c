import crypto from 'node:crypto';
import os from 'node:os';
import { sql, type SQL } from 'drizzle-orm';
import type pg from 'pg';
import { Counter, Gauge } from 'prom-client';
import { domainEvents } from '../core/events.js';
import type { Db, DbOrTx } from './db-connection.js';
import { publishAfterCommit } from './db.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { namedQuery } from './named-statements.js';

/**
 * The one outbox (DESIGN.md section 4): work that follows a commit and may be slow or fail (webhook deliveries,
 * and whatever else a module registers in src/outbox-handlers.ts). `enqueue(tx, kind, payload)` writes a row in the
 * transaction that caused the work, so a rollback leaves nothing to do. After the commit, the workers of every node
 * drain the table:
 * - a claim is one short statement that takes due rows with FOR UPDATE SKIP LOCKED (two nodes never claim one row)
 *   and leases them (`locked_until`); the work runs outside any transaction, so no connection is held while a
 *   handler waits on the outside world (the embedded database has a single connection);
 * - a row whose lease ran out (its node died, or was killed between the commit and the work) is claimable again:
 *   delivery is at least once, never lost;
 * - the node that committed the row hears it at once (`outbox.queued`, published after the commit) and every node
 *   also polls every OUTBOX_POLL_MS, so a row committed on another node, or due later, is found;
 * - a failed run is retried after the handler's `retryDelaysMs[attempt - 1]`; past the last delay, or when the
 *   handler throws `GiveUp`, the row keeps `failed_at` and the handler's `onGiveUp` runs;
 * - work in flight is bounded per handler (`maxInFlight`), per key (`maxInFlightPerKey`, e.g. one webhook
 *   endpoint, counted over the leases of every node) and per node (OUTBOX_MAX_IN_FLIGHT, of which one kind takes at
 *   most three quarters when the node has others).
 */

/** What each kind of work carries, declared by its module (declaration merging), like DomainEventMap. */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface OutboxPayloads {}
export type OutboxKind = keyof OutboxPayloads & string;

declare module '../core/events.js' {
  interface DomainEventMap {
    /** An outbox row was committed on this node: its worker claims it at once instead of at the next poll. */
    'outbox.queued': { kind: string };
  }
}

export interface OutboxJob {
  id: string;
  kind: string;
  key: string | null;
  /** This attempt's number, 1 for the first. */
  attempt: number;
  createdAt: Date;
  /** When the work runs again should this attempt fail; null: this is the last attempt. */
  retryAt: Date | null;
  /** What the handler's `load` read in the claim (its row as JSON), or null: none, or no `load`. */
  loaded: Record<string, unknown> | null;
}

export interface OutboxHandler<K extends OutboxKind = OutboxKind, F = never> {
  kind: K;
  /** Runs of this kind in flight on one node at most. */
  maxInFlight: number;
  /**
   * The rows a run reads first, read by the claim itself (one round trip less per run): a query of at most one row
   * given the claimed row's `payload` (a jsonb expression); its row reaches `run` as `job.loaded`, as JSON
   * (timestamps as ISO strings), read in the same instant as the claim.
   */
  load?(payload: SQL): SQL;
  /** Runs of one key in flight on all nodes together at most (rows without a key are not counted). */
  maxInFlightPerKey?: number;
  /**
   * How long a row of this kind, queued on this node, waits for more before they are claimed (WAKE_COALESCE_MS when
   * left out): one claim then takes a burst's rows together, and the rows finished meanwhile are deleted by it, for
   * a few round trips where each row would cost two. For work whose receiver can wait that much longer.
   */
  gatherMs?: number;
  /** A claimed row is another node's to take after this long: longer than the slowest run can be. */
  leaseMs: number;
  /** The wait after attempt n fails is retryDelaysMs[n - 1]; after the last one the row is given up. */
  retryDelaysMs: readonly number[];
  /**
   * Resolves: done (the row is deleted). Throws: retried, or given up (GiveUp, or no retry left). May resolve to a
   * value for `finish`.
   */
  run(payload: OutboxPayloads[K], job: OutboxJob): Promise<void | F>;
  /**
   * The record of finished work, written with the deletion of its rows: the values that runs of this kind resolved to
   * since the last deletion, as one data-modifying statement (it becomes a CTE of the statement that deletes their
   * rows, usually the next claim). The record and the row's end are one atomic write, and a burst of runs writes
   * once. Should that statement fail, the rows are left to run again once their lease is over (at least once).
   * Its text must not depend on how many values there are (each column one array parameter), so that the claims
   * keep a few texts, each a named statement planned once (named-statements.ts).
   */
  finish?(values: F[]): SQL;
  /** After the last failed attempt (the row stays, with failed_at). */
  onGiveUp?(payload: OutboxPayloads[K], job: OutboxJob, error: unknown): Promise<void>;
}

/** Thrown by a handler: this work must not be tried again (e.g. the receiver answered 410 Gone). */
export class GiveUp extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GiveUp';
  }
}

/**
 * Thrown by a handler: retry, but not before `at` (a push service's Retry-After). The row runs again at the later of
 * `at` and the handler's own next delay; with no retry left it is given up like any failure.
 */
export class RetryAt extends Error {
  constructor(
    message: string,
    readonly at: Date,
  ) {
    super(message);
    this.name = 'RetryAt';
  }
}

/** Typed at the definition, stored among the others without its kind's payload type. */
export function defineOutboxHandler<K extends OutboxKind, F = never>(handler: OutboxHandler<K, F>): OutboxHandler {
  return handler as unknown as OutboxHandler;
}

/**
 * The time the outbox (and the work it runs) reads: tests move it forward to reach a retry due hours later. Rows
 * are stamped and claimed by this clock, not the database's, so the nodes' clocks must agree to within a poll.
 */
export const outboxClock = { now: (): Date => new Date() };

/**
 * A row in the caller's transaction (`tx`: the transaction that caused the work, so that a rollback leaves nothing
 * to do). Its node's worker is woken once the outermost transaction commits.
 */
export async function enqueue<K extends OutboxKind>(tx: DbOrTx, kind: K, payload: OutboxPayloads[K], opts: { runAt?: Date; key?: string } = {}): Promise<void> {
  const runAt = opts.runAt ?? outboxClock.now();
  await tx.execute(sql`
    INSERT INTO outbox (kind, payload, key, run_at, created_at)
    VALUES (${kind}, ${JSON.stringify(payload)}::jsonb, ${opts.key ?? null}, ${runAt.toISOString()}::timestamptz, ${outboxClock.now().toISOString()}::timestamptz)`);
  publishAfterCommit('outbox.queued', { kind });
}

/**
 * Set-based enqueue, for the body of a CTE in the caller's statement (one round trip for a write and its outbox
 * rows): a row of `kind` for each row of `from` (a relation the statement defines), with `payload` (jsonb) and
 * `key` computed from it, due now. Call outboxQueuedAfterCommit(kind) when the statement queued any.
 */
export function outboxInsert(kind: OutboxKind, rows: { from: SQL; payload: SQL; key?: SQL }): SQL {
  const now = outboxClock.now().toISOString();
  return sql`
    INSERT INTO outbox (kind, payload, key, run_at, created_at)
    SELECT ${kind}, ${rows.payload}, ${rows.key ?? sql`NULL`}, ${now}::timestamptz, ${now}::timestamptz FROM ${rows.from}`;
}

/** Wakes this node's worker for `kind` once the outermost transaction commits (as enqueue does). */
export function outboxQueuedAfterCommit(kind: OutboxKind): void {
  publishAfterCommit('outbox.queued', { kind });
}

/** A run that succeeded: its row to delete, and what its handler's `finish` records of it (if anything). */
interface Finished {
  id: string;
  kind: string;
  value: unknown;
}

/** The finished rows' ids, one array parameter (the statement's text is the same whatever their number). */
const doneIdArray = (done: readonly Finished[]) => sql`${sql.param(done.map((d) => d.id))}::bigint[]`;

interface ClaimedRow extends Record<string, unknown> {
  id: string;
  loaded: Record<string, unknown> | null;
  kind: string;
  key: string | null;
  payload: unknown;
  attempts: number;
  created_at: string | Date;
}

export interface OutboxWorkerOptions {
  db: Db;
  log: Logger;
  metrics?: Metrics;
  /** Every node polls this often for rows committed elsewhere or due later. */
  pollMs: number;
  /** Runs in flight on this node, all kinds together. */
  maxInFlight: number;
  /**
   * Where named prepared statements are allowed (a PostgreSQL server: Database.namedStatements), the pool behind
   * `db`: the claims and deletions, sent several times a second with the same text, are then planned once per
   * connection instead of at every call. Left out (PGlite, tests of other databases): sent unnamed through `db`.
   */
  namedStatementsPool?: pg.Pool;
}

/**
 * Wake-ups closer together than this are one claim: a burst of commits (or a commit and a poll) claims once.
 * A delivery waits at most this much longer for it.
 */
export const WAKE_COALESCE_MS = 10;
/**
 * Finished rows are deleted together: with the next claim, or this long after the first of them finished when no
 * claim comes. A node killed in this window runs them again once their lease is over (at least once, as ever).
 */
export const FINISH_BATCH_MS = 20;

/** One node's worker: claims due rows of the kinds it has handlers for and runs them. */
export class OutboxWorker {
  readonly nodeId = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  private readonly handlers = new Map<string, OutboxHandler>();
  private readonly running = new Map<string, number>();
  private readonly runs = new Set<Promise<void>>();
  /** Kinds whose last claim left due rows unclaimed (no room, or their key's bound): a finished run claims again. */
  private readonly backlog = new Set<string>();
  /** Rows whose run succeeded, not yet deleted (deleted with the next claim, or after FINISH_BATCH_MS). */
  private done: Finished[] = [];
  private totalRunning = 0;
  private pumping: Promise<void> | null = null;
  /** A claim was asked for while one was going: claim again right after it. */
  private pumpAgain = false;
  /**
   * The kinds the next claim is for: a commit wakes the worker for the kind it queued, and only that kind is
   * claimed (with any kind that has a backlog), not every kind: each claim is a statement, and three of the four
   * kinds found nothing at each webhook delivery's wake-up. Polls, the start and `settle` claim every kind
   * (`wantAll`): rows due later (retries) and rows committed on another node are found by them.
   */
  private readonly wanted = new Set<string>();
  private wantAll = false;
  private wakeTimer: NodeJS.Timeout | null = null;
  /** When wakeTimer fires (performance.now()). */
  private wakeAt = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private runsCounter: Counter<'kind' | 'outcome'> | null = null;

  constructor(
    handlers: readonly OutboxHandler[],
    private readonly opts: OutboxWorkerOptions,
  ) {
    for (const handler of handlers) {
      if (this.handlers.has(handler.kind)) throw new Error(`Two outbox handlers for the kind ${handler.kind}`);
      this.handlers.set(handler.kind, handler);
      this.running.set(handler.kind, 0);
    }
    if (opts.metrics) this.watch(opts.metrics);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = domainEvents.subscribe((event) => {
      if (event.name !== 'outbox.queued') return;
      const handler = this.handlers.get(event.payload.kind);
      if (handler) this.wake(handler.gatherMs, handler.kind);
    });
    this.timer = setInterval(() => this.wake(), this.opts.pollMs);
    this.timer.unref();
    this.wake();
  }

  /**
   * Take nothing new and wait up to `graceMs` for the runs in flight, then delete the rows that finished. A run
   * still going keeps its lease; when the lease runs out another node (or this one restarted) runs it again.
   */
  async stop(graceMs = 5000): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    const all = Promise.allSettled([this.pumping, ...this.runs]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    await this.flushDone().catch((err) => this.opts.log.warn({ err }, 'could not delete finished outbox rows; they will run again'));
  }

  /**
   * Claim what is due within `delayMs` (coalesced: wakes meanwhile are the same claim, or an earlier one; short wakes
   * during a claim are one more claim right after it), of `kind` alone, or of every kind.
   */
  wake(delayMs = WAKE_COALESCE_MS, kind?: string): void {
    if (this.stopped) return;
    if (kind === undefined) this.wantAll = true;
    else this.wanted.add(kind);
    if (this.pumping && delayMs <= WAKE_COALESCE_MS) {
      this.pumpAgain = true;
      return;
    }
    const at = performance.now() + delayMs;
    if (this.wakeTimer) {
      if (this.wakeAt <= at) return;
      clearTimeout(this.wakeTimer);
    }
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      this.startPump();
    }, delayMs);
  }

  private startPump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
    });
  }

  /**
   * Tests and benches: claim and run until nothing is due by the outbox clock, waiting for each run, and delete the
   * finished rows. (Rows due later stay; move `outboxClock` to reach them.)
   */
  async settle(): Promise<void> {
    for (;;) {
      // A claim already asked for is made here, now, rather than by its timer while this returns.
      if (this.wakeTimer) clearTimeout(this.wakeTimer);
      this.wakeTimer = null;
      if (this.pumping) {
        await this.pumping;
        continue;
      }
      this.takeWanted(); // this claim is for every kind
      const claimed = await this.pumpOnce('all');
      if (this.runs.size) await Promise.allSettled([...this.runs]);
      else if (!claimed && !this.pumping && !this.wakeTimer) break;
    }
    await this.flushDone();
  }

  private async pump(): Promise<void> {
    do {
      this.pumpAgain = false;
      try {
        await this.pumpOnce(this.takeWanted());
      } catch (err) {
        // The database is away: the next poll tries again.
        this.opts.log.warn({ err }, 'outbox claim failed');
        return;
      }
    } while (this.pumpAgain && !this.stopped);
  }

  /** The kinds asked for since the last claim (see `wanted`), and none asked for any more. */
  private takeWanted(): 'all' | Set<string> {
    const kinds = this.wantAll ? 'all' : new Set(this.wanted);
    this.wantAll = false;
    this.wanted.clear();
    return kinds;
  }

  /**
   * One claim per kind asked for (`kinds`, and every kind with a backlog) with room, the finished rows deleted by the
   * first of them (or alone when no kind has room); true when anything was claimed.
   */
  private async pumpOnce(kinds: 'all' | ReadonlySet<string>): Promise<boolean> {
    let claimedAny = false;
    const share = this.kindShare();
    for (const handler of this.handlers.values()) {
      if (kinds !== 'all' && !kinds.has(handler.kind) && !this.backlog.has(handler.kind)) continue;
      const running = this.running.get(handler.kind)!;
      const room = Math.min(handler.maxInFlight - running, share - running, this.opts.maxInFlight - this.totalRunning);
      if (room <= 0) continue;
      const { rows, due } = await this.withDone((done) => this.claim(handler, room, done));
      for (const row of rows) this.launch(handler, row);
      if (rows.length) claimedAny = true;
      // The claim saw at most `room` due rows (its scan's limit): one that filled the room may have left more behind.
      if (due > rows.length || rows.length === room) this.backlog.add(handler.kind);
      else this.backlog.delete(handler.kind);
      // Maybe more are due: claim again once this round is over (the room left decides how many).
      if (rows.length === room) {
        this.pumpAgain = true;
        this.wanted.add(handler.kind);
      }
    }
    await this.flushDone();
    return claimedAny;
  }

  /**
   * The most runs one kind may have on this node: OUTBOX_MAX_IN_FLIGHT less a quarter of it (at least one) kept for
   * the other kinds, so that a flood of one kind (a community post's pushes) never holds every slot while an alert's
   * fan-out or a webhook waits behind it. With one kind, all of it.
   */
  private kindShare(): number {
    const max = this.opts.maxInFlight;
    return this.handlers.size > 1 ? Math.max(1, max - Math.max(1, Math.floor(max / 4))) : max;
  }

  private takeDone(): Finished[] {
    const done = this.done;
    this.done = [];
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    return done;
  }

  /** Deletes the finished rows not yet deleted, with their handlers' records (one statement). */
  private async flushDone(): Promise<void> {
    await this.withDone(async (done) => {
      if (!done.length) return;
      await this.query(sql`
        WITH ${this.finishing(done)}
        gone AS (DELETE FROM outbox WHERE id = ANY(${doneIdArray(done)}) RETURNING id)
        SELECT count(*)::int AS n FROM gone`);
    });
  }

  /**
   * `write`, a statement that also deletes the finished rows (and writes their records). Should it fail (rolled
   * back), the rows without a record are kept for the next one; those with a record are dropped, left to run again
   * once their lease is over, and `write` is tried once more without them: a record that cannot be written never
   * stops the claims that would carry it. A failure with no record in it (the database is away) is thrown.
   */
  private async withDone<T>(write: (done: Finished[]) => Promise<T>): Promise<T> {
    const done = this.takeDone();
    try {
      return await write(done);
    } catch (err) {
      this.done.push(...done.filter((d) => d.value === undefined));
      const recorded = done.filter((d) => d.value !== undefined);
      if (!recorded.length) throw err;
      this.opts.log.warn({ err, outboxIds: recorded.map((d) => d.id) }, 'could not record finished outbox work; it runs again after its lease');
      return this.withDone(write);
    }
  }

  /**
   * The `finish` statements of the handlers whose runs left a record, as CTEs (each followed by a comma), in the
   * handlers' order: the statement has one text per set of kinds with records (whatever their number), so a named
   * statement serves it. A kind without records adds nothing, so a `finish` that cannot be written stops only the
   * statements that carry its records (withDone then drops them).
   */
  private finishing(done: readonly Finished[]): SQL {
    const byKind = new Map<string, unknown[]>();
    for (const d of done) {
      if (d.value === undefined) continue;
      const values = byKind.get(d.kind);
      if (values) values.push(d.value);
      else byKind.set(d.kind, [d.value]);
    }
    const ctes: SQL[] = [];
    for (const [kind, handler] of this.handlers) {
      const values = byKind.get(kind);
      if (values && handler.finish) ctes.push(sql`${sql.raw(`finished_${ctes.length}`)} AS (${handler.finish(values as never[])}),`);
    }
    return sql.join(ctes, sql` `);
  }

  /** A statement of the worker's own: named where the database allows it (see namedStatementsPool). */
  private async query<T extends Record<string, unknown>>(statement: SQL): Promise<T[]> {
    const pool = this.opts.namedStatementsPool;
    if (pool) return (await pool.query<T>(namedQuery(statement))).rows;
    return (await this.opts.db.execute<T>(statement)).rows as T[];
  }

  /**
   * Due rows of one kind, at most `limit`, leased to this node, in one statement (no transaction held open, no
   * second round trip; on the embedded database's single connection this matters most), which also deletes `done`.
   * SKIP LOCKED: rows another node is claiming at this moment are left to it. With a per-key bound, the keys'
   * leases on every node are counted in the same statement and the rows over the bound are left unclaimed (two
   * nodes claiming one key at the same instant may each take one: the bound holds per claim, and so within one node
   * exactly). Answers the rows claimed and how many due rows the claim saw (more than it took: some are waiting for
   * room or for their key).
   */
  private async claim(handler: OutboxHandler, limit: number, done: readonly Finished[]): Promise<{ rows: ClaimedRow[]; due: number }> {
    const now = outboxClock.now();
    const nowText = now.toISOString();
    const leaseUntil = new Date(now.getTime() + handler.leaseMs).toISOString();
    const perKey = handler.maxInFlightPerKey;
    const doneIds = doneIdArray(done);
    // Rows over their key's bound are skipped, so a keyed claim looks a little further than its room.
    const scan = perKey ? limit * 4 : limit;
    const chosen = perKey
      ? sql`
        busy AS (
          SELECT key, count(*)::int AS n FROM outbox
          WHERE key IN (SELECT key FROM due WHERE key IS NOT NULL) AND failed_at IS NULL
            AND locked_until >= ${nowText}::timestamptz AND id <> ALL(${doneIds})
          GROUP BY key
        ),
        chosen AS (
          SELECT r.id FROM (SELECT due.*, row_number() OVER (PARTITION BY due.key ORDER BY due.run_at, due.id) AS rn FROM due) r
          LEFT JOIN busy b ON b.key = r.key
          WHERE r.key IS NULL OR r.rn + coalesce(b.n, 0) <= ${perKey}
          ORDER BY r.run_at, r.id LIMIT ${limit}
        ),`
      : sql`chosen AS (SELECT id FROM due),`;
    const rows = await this.query<ClaimedRow & { due_n: number }>(sql`
      WITH ${this.finishing(done)}
      gone AS (
        DELETE FROM outbox WHERE id = ANY(${doneIds}) RETURNING id
      ),
      due AS (
        SELECT id, key, run_at FROM outbox
        WHERE kind = ${handler.kind} AND failed_at IS NULL AND run_at <= ${nowText}::timestamptz
          AND (locked_until IS NULL OR locked_until < ${nowText}::timestamptz)
        ORDER BY run_at, id
        LIMIT ${scan}
        FOR UPDATE SKIP LOCKED
      ),
      ${chosen}
      claimed AS (
        UPDATE outbox o SET locked_until = ${leaseUntil}::timestamptz, locked_by = ${this.nodeId}, attempts = o.attempts + 1
        FROM chosen WHERE o.id = chosen.id
        RETURNING o.id::text AS id, o.kind, o.key, o.payload, o.attempts, o.created_at, o.run_at
      )
      SELECT c.id, c.kind, c.key, c.payload, c.attempts, c.created_at,
        ${handler.load ? sql`(SELECT to_jsonb(l) FROM (${handler.load(sql`c.payload`)}) l LIMIT 1)` : sql`NULL::jsonb`} AS loaded,
        (SELECT count(*) FROM due)::int AS due_n, (SELECT count(*) FROM gone)::int AS gone_n
      FROM (SELECT 1) one LEFT JOIN claimed c ON true
      ORDER BY c.run_at, c.id::bigint`);
    return { rows: rows.filter((r) => r.id !== null), due: rows[0]?.due_n ?? 0 };
  }

  private launch(handler: OutboxHandler, row: ClaimedRow): void {
    this.running.set(handler.kind, this.running.get(handler.kind)! + 1);
    this.totalRunning++;
    const run = this.runOne(handler, row).finally(() => {
      this.running.set(handler.kind, this.running.get(handler.kind)! - 1);
      this.totalRunning--;
      this.runs.delete(run);
      // Rows were left waiting for room: claim now. Otherwise only the finished row's deletion is due.
      if (this.backlog.has(handler.kind)) this.wake(WAKE_COALESCE_MS, handler.kind);
      else this.scheduleFlush();
    });
    this.runs.add(run);
  }

  private scheduleFlush(): void {
    if (!this.done.length || this.flushTimer || this.stopped) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      if (this.pumping || this.wakeTimer) return; // the claim coming deletes them
      this.flushDone().catch((err) => this.opts.log.error({ err }, 'could not delete finished outbox rows; retrying with the next claim'));
    }, FINISH_BATCH_MS);
  }

  private async runOne(handler: OutboxHandler, row: ClaimedRow): Promise<void> {
    const delay = handler.retryDelaysMs[row.attempts - 1];
    const job: OutboxJob = {
      id: row.id,
      kind: row.kind,
      key: row.key,
      attempt: row.attempts,
      createdAt: new Date(row.created_at),
      retryAt: delay === undefined ? null : new Date(outboxClock.now().getTime() + delay),
      loaded: row.loaded ?? null,
    };
    const payload = row.payload as OutboxPayloads[OutboxKind];
    let value: unknown;
    try {
      value = await handler.run(payload, job);
    } catch (error) {
      await this.failed(handler, job, payload, error).catch((err) => this.opts.log.error({ err, outboxId: row.id, kind: row.kind }, 'could not record an outbox failure; the lease will expire'));
      return;
    }
    this.runsCounter?.inc({ kind: handler.kind, outcome: 'ok' });
    this.done.push({ id: row.id, kind: row.kind, value: value ?? undefined });
  }

  private async failed(handler: OutboxHandler, job: OutboxJob, payload: OutboxPayloads[OutboxKind], error: unknown): Promise<void> {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 1000);
    const giveUp = error instanceof GiveUp || job.retryAt === null;
    if (!giveUp) {
      if (error instanceof RetryAt && error.at > job.retryAt!) job.retryAt = error.at;
      this.runsCounter?.inc({ kind: handler.kind, outcome: 'retry' });
      this.opts.log.info({ outboxId: job.id, kind: job.kind, attempt: job.attempt, retryAt: job.retryAt, error: message }, 'outbox work failed; retrying later');
      await this.query(sql`
        UPDATE outbox SET run_at = ${job.retryAt!.toISOString()}::timestamptz, locked_until = NULL, locked_by = NULL, last_error = ${message}
        WHERE id = ${job.id}::bigint`);
      return;
    }
    this.runsCounter?.inc({ kind: handler.kind, outcome: 'failed' });
    this.opts.log.warn({ outboxId: job.id, kind: job.kind, attempt: job.attempt, error: message }, 'outbox work given up');
    await this.query(sql`
      UPDATE outbox SET failed_at = ${outboxClock.now().toISOString()}::timestamptz, locked_until = NULL, locked_by = NULL, last_error = ${message}
      WHERE id = ${job.id}::bigint`);
    await handler.onGiveUp?.(payload, { ...job, retryAt: null }, error);
  }

  /**
   * /metrics: rows queued, leased (in flight on any node) and given up, and the age of the oldest queued row, per
   * kind, read from the table at scrape time (the whole cluster's figures, the same on every node); runs in flight
   * on this node and the outcomes of its runs, counted here.
   */
  private watch(metrics: Metrics): void {
    const kinds = [...this.handlers.keys()];
    const db = this.opts.db;
    const running = this.running;
    new Gauge({
      name: 'hyperlocal_outbox_rows',
      help: 'Outbox rows by kind and state: queued (waiting, retries included), in_flight (leased by a node), failed (given up)',
      labelNames: ['kind', 'state'] as const,
      registers: [metrics.registry],
      async collect() {
        const now = outboxClock.now().toISOString();
        const { rows } = await db.execute<{ kind: string; queued: number; in_flight: number; failed: number }>(sql`
          SELECT kind,
            count(*) FILTER (WHERE failed_at IS NULL AND (locked_until IS NULL OR locked_until < ${now}::timestamptz))::int AS queued,
            count(*) FILTER (WHERE failed_at IS NULL AND locked_until >= ${now}::timestamptz)::int AS in_flight,
            count(*) FILTER (WHERE failed_at IS NOT NULL)::int AS failed
          FROM outbox GROUP BY kind`);
        this.reset();
        for (const kind of kinds) for (const state of ['queued', 'in_flight', 'failed'] as const) this.set({ kind, state }, 0);
        for (const row of rows) for (const state of ['queued', 'in_flight', 'failed'] as const) this.set({ kind: row.kind, state }, row[state]);
      },
    });
    new Gauge({
      name: 'hyperlocal_outbox_oldest_age_seconds',
      help: 'Age of the oldest outbox row not given up, by kind (0: none)',
      labelNames: ['kind'] as const,
      registers: [metrics.registry],
      async collect() {
        const { rows } = await db.execute<{ kind: string; oldest: string | Date }>(sql`
          SELECT kind, min(created_at) AS oldest FROM outbox WHERE failed_at IS NULL GROUP BY kind`);
        this.reset();
        for (const kind of kinds) this.set({ kind }, 0);
        const now = outboxClock.now().getTime();
        for (const row of rows) this.set({ kind: row.kind }, Math.max(0, (now - new Date(row.oldest).getTime()) / 1000));
      },
    });
    new Gauge({
      name: 'hyperlocal_outbox_running',
      help: 'Outbox work running on this node, by kind',
      labelNames: ['kind'] as const,
      registers: [metrics.registry],
      collect() {
        for (const [kind, n] of running) this.set({ kind }, n);
      },
    });
    this.runsCounter = new Counter({
      name: 'hyperlocal_outbox_runs_total',
      help: 'Outbox runs on this node by kind and outcome (ok, retry: failed and scheduled again, failed: given up)',
      labelNames: ['kind', 'outcome'] as const,
      registers: [metrics.registry],
    });
  }
}

/** This process's worker, started by the server (src/server.ts) with the handlers of src/outbox-handlers.ts. */
export let outboxWorker: OutboxWorker | null = null;

export function startOutboxWorker(handlers: readonly OutboxHandler[], opts: OutboxWorkerOptions): OutboxWorker {
  outboxWorker = new OutboxWorker(handlers, opts);
  outboxWorker.start();
  return outboxWorker;
}

export async function stopOutboxWorker(graceMs?: number): Promise<void> {
  const worker = outboxWorker;
  outboxWorker = null;
  await worker?.stop(graceMs);
}
