/**
 * A scheduled job as a module declares it (its `*.job.ts`); src/jobs schedules the ones it lists. Here, below
 * both, so that a module never imports the layer that imports it.
 */
export interface JobDefinition {
  name: string;
  /** A cron expression (node-cron). */
  schedule: string;
  /** What it returns (counts) is logged with its duration. Must be idempotent: two runs do no harm. */
  run: () => Promise<unknown>;
}
