import { platform } from './index.js';

/**
 * Reads of one kind gathered into one statement: reads asked for in the same turn of the event loop, or while that
 * statement still waits for a pool connection, join it (at most `max`; more start the next one). A lone read waits
 * for nobody: it leaves at the end of the turn it was asked in. Each read is sent after it was asked for, so it sees
 * every commit made before. Used where many callers read one row each at once: the caller lookup behind every
 * request (accounts/tokens.ts), a claim's pushes (push/push.outbox.ts).
 */
export interface GatheredReadsOptions<K, R> {
  /** Reads one statement answers at most. */
  max: number;
  /** The statement for these keys; `named` where the database allows named statements (a server, not PGlite). */
  query(keys: readonly K[], named: boolean): { name?: string; text: string; values: unknown[] };
  /** The answer to each key, in the order of `keys` (undefined: nothing found). */
  answers(keys: readonly K[], rows: R[]): Array<R | undefined>;
  /** Each statement sent, with the number of reads it answers (tests count them). */
  onSend?(reads: number): void;
}

interface Waiting<K, R> {
  key: K;
  resolve(row: R | undefined): void;
  reject(err: unknown): void;
}

export function gatheredReads<K, R extends object>(opts: GatheredReadsOptions<K, R>): (key: K) => Promise<R | undefined> {
  /** The statement waiting for a database connection, which later reads join; null when none waits. */
  let gathering: Array<Waiting<K, R>> | null = null;

  function send(batch: Array<Waiting<K, R>>): void {
    const { pool, namedStatements } = platform.database;
    const fail = (err: unknown) => {
      for (const read of batch) read.reject(err);
    };
    pool.connect((connectError, client, release) => {
      if (gathering === batch) gathering = null;
      if (connectError || !client) return fail(connectError);
      opts.onSend?.(batch.length);
      const keys = batch.map((read) => read.key);
      const query = opts.query(keys, namedStatements);
      // As pool.query does: the connection goes back to the pool once, with the error if the query failed (the pool
      // then drops it); an error the connection emits meanwhile is the query's.
      let settled = false;
      const settle = (err: Error | undefined, rows?: R[]) => {
        if (settled) return;
        settled = true;
        client.removeListener('error', settle);
        release(err);
        if (err || !rows) return fail(err);
        const answers = opts.answers(keys, rows);
        batch.forEach((read, i) => read.resolve(answers[i]));
      };
      client.once('error', settle);
      try {
        client.query(query).then(({ rows }) => settle(undefined, rows as R[]), settle);
      } catch (err) {
        settle(err as Error);
      }
    });
  }

  return (key) =>
    new Promise((resolve, reject) => {
      const read = { key, resolve, reject };
      if (gathering && gathering.length < opts.max) return void gathering.push(read);
      const batch = [read];
      gathering = batch;
      setImmediate(send, batch);
    });
}

/** `answers` for a statement whose rows carry their key's 1-based position in a column (unnest ... WITH ORDINALITY). */
export function byOrdinal<R extends object>(column: keyof R): <K>(keys: readonly K[], rows: R[]) => Array<R | undefined> {
  return (keys, rows) => {
    const found = new Map(rows.map((row) => [Number(row[column]), row]));
    return keys.map((_, i) => found.get(i + 1));
  };
}
