import type { z } from 'zod';
import type { PendingEvents } from './events.js';
import type { Tx } from '../platform/db.js';

/**
 * How a module takes part in leaving (DESIGN.md section 9; docs/modules/leaving.md): what it deletes when an account
 * is deleted, and what it contributes to the account's export. Each module declares its own part in its `*.leaving.ts`
 * and `*.export.ts`, importing this contract; the lists of them are src/modules/leaving/account-deletion.steps.ts and
 * export.sections.ts. The contract lives here, below every module (as job-definition.ts does), so that a module
 * taking part in leaving never imports the leaving module, which imports every module.
 */

/**
 * What a foreign-key column referencing users(id) becomes when an account is deleted:
 * - `step`: the module's step leaves no row naming the user (it deletes the rows, or points them elsewhere,
 *   or clears the column), with every counter and push that follows from it;
 * - `set null`: the row stays for someone else and the foreign key's ON DELETE SET NULL clears the reference when
 *   the user row goes (a message in the other person's conversation, an order the seller keeps). The coverage test
 *   checks that the column really is nullable with that action.
 */
export type UserReferenceHandling = 'step' | 'set null';

/** The transaction of one account deletion, as every step sees it. */
export interface AccountDeletion {
  tx: Tx;
  /** Published after the commit (post:deleted, order:updated, ...). */
  events: PendingEvents;
  userId: string;
}

export interface AccountDeletionStep {
  /** The module that owns the step, for logs and for the coverage test's report. */
  module: string;
  /**
   * Every column referencing users(id) that this step answers for, as `table.column`. The coverage test
   * (tests/api/account-deletion-coverage.test.ts) reads every such foreign key from the database and fails when one is
   * answered for by no step, or by two: a new table that names users cannot be forgotten.
   */
  handles: Readonly<Record<string, UserReferenceHandling>>;
  /**
   * Optional: rows the step will change that other people's writes lock BEFORE they touch the user row. A reply
   * locks its post, then names the leaving account in a notification (KEY SHARE on the user row): were the post
   * locked only after the user row, the two would wait on each other. These locks are taken first, in the steps'
   * order, before the deletion locks the user row (account-deletion.service.ts).
   */
  lockFirst?(deletion: AccountDeletion): Promise<void>;
  /** Runs in the deletion's transaction, after the steps listed before it; set-based statements only. */
  run(deletion: AccountDeletion): Promise<void>;
}

/** A position in a section of the export: the (created_at, id) of the last item given, newest first. */
export interface ExportPosition {
  at: string;
  id: string;
}

/** Who is exporting, and the base of the absolute URLs in what they get. */
export interface ExportViewer {
  userId: string;
  baseUrl: string;
}

export interface ExportSection {
  /** The key of the section in the export document (`posts`), and its name in the paging path. */
  name: string;
  /** The shape of one item, for the OpenAPI document. */
  item: z.ZodType;
  /**
   * The caller's own items of this kind, newest first, after `before` (null: from the newest), at most `limit`;
   * each with its position. Only what the caller wrote or owns, and of other people only what the caller can see
   * where the item is shown to them (a blocked person's short shape, an order's buyer id for its seller).
   */
  load(viewer: ExportViewer, page: { before: ExportPosition | null; limit: number }): Promise<Array<{ item: unknown; position: ExportPosition }>>;
}
