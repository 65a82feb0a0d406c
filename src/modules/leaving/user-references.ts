import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db.js';
import type { AccountDeletionStep, UserReferenceHandling } from '../../core/leaving.js';

/** A foreign-key column that references users(id), as the database describes it. */
export interface UserReference {
  /** `table.column` */
  column: string;
  /** ON DELETE: `c` cascade, `n` set null, `a` no action, `r` restrict, `d` set default. */
  onDelete: string;
  nullable: boolean;
  /**
   * Whether an index that starts with this column serves `column = $1` (whole, or partial on `column IS NOT NULL`):
   * a deletion then reads only the rows that name the user.
   */
  indexed: boolean;
}

/** Every single-column foreign key onto users(id) in the public schema, read from pg_constraint. */
export async function userReferences(db: DbOrTx): Promise<UserReference[]> {
  const { rows } = await db.execute<{ table_name: string; column_name: string; on_delete: string; nullable: boolean; indexed: boolean }>(sql`
    SELECT rel.relname AS table_name, att.attname AS column_name, con.confdeltype AS on_delete, NOT att.attnotnull AS nullable,
      EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = con.conrelid AND i.indkey[0] = att.attnum
        AND (i.indpred IS NULL OR pg_get_expr(i.indpred, i.indrelid) = '(' || quote_ident(att.attname) || ' IS NOT NULL)')) AS indexed
    FROM pg_constraint con
    JOIN pg_class rel ON rel.oid = con.conrelid
    JOIN pg_namespace ns ON ns.oid = rel.relnamespace
    JOIN pg_attribute att ON att.attrelid = con.conrelid AND att.attnum = con.conkey[1]
    WHERE con.contype = 'f' AND con.confrelid = 'public.users'::regclass AND ns.nspname = 'public'
    ORDER BY 1, 2`);
  return rows.map((r) => ({ column: `${r.table_name}.${r.column_name}`, onDelete: r.on_delete, nullable: r.nullable, indexed: r.indexed }));
}

/**
 * What is wrong with the steps' declarations against the database: a referencing column no step answers for, one
 * answered for twice, a declared column that does not exist, or a `set null` column whose foreign key does not set
 * null. Empty when every reference is handled.
 */
export function coverageProblems(references: readonly UserReference[], steps: readonly AccountDeletionStep[]): string[] {
  const declared = new Map<string, Array<{ module: string; handling: UserReferenceHandling }>>();
  for (const step of steps) {
    for (const [column, handling] of Object.entries(step.handles)) {
      declared.set(column, [...(declared.get(column) ?? []), { module: step.module, handling }]);
    }
  }
  const problems: string[] = [];
  const existing = new Map(references.map((r) => [r.column, r]));
  for (const ref of references) {
    const by = declared.get(ref.column) ?? [];
    if (!by.length) problems.push(`${ref.column} references users(id) and no account-deletion step handles it`);
    if (by.length > 1) problems.push(`${ref.column} is handled by several steps: ${by.map((b) => b.module).join(', ')}`);
    for (const b of by) {
      if (b.handling === 'set null' && (ref.onDelete !== 'n' || !ref.nullable)) {
        problems.push(`${ref.column} is declared 'set null' by ${b.module}, but its foreign key is not a nullable ON DELETE SET NULL`);
      }
    }
  }
  for (const [column, by] of declared) {
    if (!existing.has(column)) problems.push(`${column} is declared by ${by.map((b) => b.module).join(', ')} but no such foreign key onto users exists`);
  }
  return problems;
}
