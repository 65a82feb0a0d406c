import { AsyncLocalStorage } from 'node:async_hooks';
import { domainEvents, PendingEvents, type DomainEventMap, type DomainEventName } from '../core/events.js';
import type { Db, DbOrTx, Tx } from './db-connection.js';
import { platform } from './index.js';

/**
 * Transactions and the database handle a query uses by default. What opens the database is in db-connection.ts,
 * re-exported here for the modules that import it from this file.
 */
export { detectNamedStatements, openDatabase, type Database, type DatabaseOptions, type Db, type DbOrTx, type Tx } from './db-connection.js';

/** The transaction that the code running now is part of, and the events it will publish after COMMIT. */
interface TransactionScope {
  tx: Tx;
  events: PendingEvents;
  /** False once the transaction has ended: a promise started inside it and still running must not use it. */
  open: boolean;
}

const scope = new AsyncLocalStorage<TransactionScope>();

/**
 * The database handle queries should use by default: the current transaction when the caller runs inside
 * `transaction()`, the pool otherwise. Query helpers take `db: DbOrTx = currentDb()`, so a helper called
 * inside a transaction without its `tx` still reads the transaction's own (uncommitted) writes, and in
 * embedded mode does not wait forever for the pool's only connection, which the transaction holds.
 */
export function currentDb(): DbOrTx {
  const current = scope.getStore();
  return current?.open ? current.tx : platform.db;
}

/**
 * Run `fn` in one transaction; domain events it raises are published only after COMMIT, never on rollback.
 * The transaction and its pending events are carried in AsyncLocalStorage (see `currentDb`).
 *
 * Nested calls do not open a second connection (in embedded mode that would wait forever). A
 * `transaction()` called inside another runs in a SAVEPOINT of the outer transaction: its writes commit
 * with the outer COMMIT, and its events join the outer pending events when it succeeds and are published
 * once, after the outermost COMMIT. When it throws, its writes are rolled back to the savepoint and its
 * events dropped, and the outer transaction may catch the error and carry on. `db` is then ignored.
 */
export async function transaction<T>(db: Db, fn: (tx: Tx, events: PendingEvents) => Promise<T>): Promise<T> {
  const outer = scope.getStore();
  if (outer?.open) {
    const events = new PendingEvents();
    const result = await outer.tx.transaction((savepoint) => within({ tx: savepoint, events, open: true }, fn));
    outer.events.adopt(events);
    return result;
  }
  const events = new PendingEvents();
  const result = await db.transaction((tx) => within({ tx, events, open: true }, fn));
  events.flush();
  return result;
}

/**
 * Publish a domain event once what it reports is committed: with the current transaction's events when the
 * code runs inside one, at once when it runs outside (the write was one statement, committed on its own).
 */
export function publishAfterCommit<K extends DomainEventName>(name: K, payload: DomainEventMap[K]): void {
  const current = scope.getStore();
  if (current?.open) current.events.add(name, payload);
  else domainEvents.publish(name, payload);
}

async function within<T>(current: TransactionScope, fn: (tx: Tx, events: PendingEvents) => Promise<T>): Promise<T> {
  try {
    return await scope.run(current, () => fn(current.tx, current.events));
  } finally {
    current.open = false;
  }
}
