-- A durable record of every change of a user's access (logout, ended sessions, deactivation, changed rights),
-- written in the transaction that makes the change. Every node reads the recent rows about once a second and
-- forgets what it cached about those users, so a change reaches every node even when its Redis announcement
-- is lost or the process dies between commit and publish. No foreign key: a deleted user's row must stay
-- readable. Rows are needed for seconds; a job deletes old ones.
CREATE TABLE access_changes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id uuid NOT NULL,
  -- The moment of the write, not of the transaction's start: the poll's look-back is measured from it.
  changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX access_changes_changed_at_idx ON access_changes (changed_at);
