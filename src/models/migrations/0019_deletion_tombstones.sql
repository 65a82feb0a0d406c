-- What went away, so that realtime.sync can tell a client that was offline (DESIGN.md section 5, `deleted`).
-- Posts, comments and messages are hard-deleted; a tombstone keeps the item's id, when it went, and the audience
-- columns that decide who could have seen it, as the sync scope decides it for live items:
--   location_id     a neighbourhood post (or a comment on one): its location's room
--   community_id    a community post (or a comment on one): its community's room
--   post_id         the post itself, or a comment's post: sockets watching that post
--   conversation_id a message: its conversation's participants
-- No foreign keys: the rows they name are gone. Kept for 30 days (src/modules/deletions/retention.ts).
CREATE TABLE deletions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  type text NOT NULL CHECK (type IN ('post', 'comment', 'message')),
  item_id uuid NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now(),
  author_id uuid,
  location_id uuid,
  community_id uuid,
  post_id uuid,
  conversation_id uuid
);

-- One range scan per room after a (deleted_at, id) position, as 0015 does for live items.
CREATE INDEX deletions_location_idx ON deletions (location_id, deleted_at, id) WHERE location_id IS NOT NULL;
CREATE INDEX deletions_community_idx ON deletions (community_id, deleted_at, id) WHERE community_id IS NOT NULL;
CREATE INDEX deletions_post_idx ON deletions (post_id, deleted_at, id) WHERE post_id IS NOT NULL;
CREATE INDEX deletions_conversation_idx ON deletions (conversation_id, deleted_at, id) WHERE conversation_id IS NOT NULL;
CREATE INDEX deletions_deleted_at_idx ON deletions (deleted_at);

-- A deleted community's memberships go with it, yet its members must still hear that its posts went: who was a
-- member when it was deleted, kept as long as the tombstones.
CREATE TABLE deleted_community_members (
  user_id uuid NOT NULL,
  community_id uuid NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, community_id)
);
CREATE INDEX deleted_community_members_deleted_at_idx ON deleted_community_members (deleted_at);
