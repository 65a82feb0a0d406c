-- Issue 37: indexes for the outbox's claim and for the cleanup jobs, checked with EXPLAIN on tables of about
-- 1,000,000 rows (docs/webhooks.md, "Retention"). Without them each statement below reads the whole table.

-- The claim (src/platform/outbox.ts): due rows of one kind, oldest first. outbox_due_idx (run_at, every kind) made a
-- claim of one kind walk the due rows of every other kind ahead of it (a backlog of pushes slowed webhook claims).
CREATE INDEX outbox_kind_due_idx ON outbox (kind, run_at, id) WHERE failed_at IS NULL;
DROP INDEX outbox_due_idx;

-- outbox.given_up_cleanup (src/platform/outbox-cleanup.job.ts): rows given up before the retention's start.
CREATE INDEX outbox_given_up_idx ON outbox (failed_at) WHERE failed_at IS NOT NULL;

-- A redelivery (webhooks.service.ts) drops the delivery's outbox row before queueing it again.
CREATE INDEX outbox_webhook_delivery_idx ON outbox ((payload->>'delivery_id')) WHERE kind = 'webhook.delivery';

-- webhooks.housekeeping (src/modules/webhooks/webhooks.job.ts): deliveries done (succeeded or failed) whose last
-- attempt, or creation, is older than the retention. The expression is the job's, word for word. Not a partial index
-- (WHERE status <> 'pending'): the planner ignores the statistics of a partial index's expression, guessed a third
-- of the table matched and read it all (1.2 s on 1,000,000 rows for an hourly run that deletes nothing).
CREATE INDEX webhook_deliveries_done_age_idx ON webhook_deliveries ((coalesce(last_attempt_at, created_at)));
