import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';

/**
 * A drizzle statement as a pg query config with a name: PostgreSQL parses and plans a named statement once per
 * connection (after its first five runs it keeps a generic plan when that costs no more), where an unnamed one is
 * parsed and planned at every call. Worth it for a statement sent many times a second whose planning costs more than
 * its execution (an outbox claim: about 1.5 ms of planning for 0.5 ms of work).
 *
 * The name is a hash of the text, so a statement's text must not depend on its values (an array as one parameter,
 * not one parameter per element): every distinct text is another prepared statement on every connection. Past
 * MAX_NAMED_TEXTS distinct texts in this process, new ones are sent unnamed, so a caller that breaks that rule costs
 * planning, never unbounded memory in the server.
 *
 * Only where Database.namedStatements is true (a PostgreSQL server; PGlite shares one session between connections).
 */
const dialect = new PgDialect();
const names = new Map<string, string>();
export const MAX_NAMED_TEXTS = 256;

export interface NamedQuery {
  name?: string;
  text: string;
  values: unknown[];
}

export function namedQuery(statement: SQL): NamedQuery {
  const { sql: text, params } = dialect.sqlToQuery(statement);
  let name = names.get(text);
  if (!name && names.size < MAX_NAMED_TEXTS) {
    name = `named_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return { name, text, values: params };
}

/** Distinct texts named so far (tests: a statement that should keep one text keeps one). */
export function namedTextsCount(): number {
  return names.size;
}
