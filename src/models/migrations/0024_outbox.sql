-- The one outbox (DESIGN.md section 4, issue 37): work that follows a commit and may be slow or fail. A row is
-- written in the transaction that caused it and drained after the commit by the workers of every node
-- (src/platform/outbox.ts). A worker claims due rows with FOR UPDATE SKIP LOCKED in a short transaction and leases
-- them (`locked_until`); the work itself runs outside any transaction, and a row whose lease ran out (its node died)
-- is claimable again. Done rows are deleted; rows a handler gave up on keep `failed_at` for the operator.
CREATE TABLE outbox (
  id bigserial PRIMARY KEY,
  kind text NOT NULL,
  payload jsonb NOT NULL,
  -- Rows of one key (e.g. one webhook endpoint) are bounded in flight together (the handler's perKeyConcurrency).
  key text,
  run_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  locked_by text,
  last_error text,
  failed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- The claim: due rows not given up on, oldest first.
CREATE INDEX outbox_due_idx ON outbox (run_at) WHERE failed_at IS NULL;
-- In flight per key, read by every claim of a keyed kind.
CREATE INDEX outbox_leased_key_idx ON outbox (key, locked_until) WHERE key IS NOT NULL AND failed_at IS NULL;
