-- The outbox of community posts whose members are still to be told `new_post` (issue 22): one row per post,
-- written in the post's transaction, worked through after the commit in batches of members by keyset on
-- user_id (`after_user_id`: the last member handled; NULL: none yet), and deleted when every member is done.
-- A row left behind by a crash is picked up by the job once `progressed_at` is old. Deleting the post or its
-- community deletes the row: nobody is told about a post that is gone.
CREATE TABLE community_post_fanouts (
  post_id uuid PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  community_id uuid NOT NULL REFERENCES communities(id) ON DELETE CASCADE,
  actor_id uuid REFERENCES users(id) ON DELETE CASCADE,
  message text NOT NULL,
  after_user_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  progressed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX community_post_fanouts_progressed_idx ON community_post_fanouts (progressed_at);
CREATE INDEX community_post_fanouts_community_idx ON community_post_fanouts (community_id);
