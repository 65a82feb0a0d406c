-- realtime.sync (src/modules/sync) pages each kind by the tuple (changed at, id), oldest first: an index whose
-- columns end in (…, timestamp, id) answers "after this position" as one range scan, ties included.
-- The (user_id, updated_at) indexes of 0001 and 0008 are prefixes of the new ones, hence dropped.
DROP INDEX IF EXISTS notifications_user_updated_idx;
CREATE INDEX IF NOT EXISTS notifications_user_changed_idx ON notifications (user_id, updated_at, id);

DROP INDEX IF EXISTS orders_user_updated_idx;
DROP INDEX IF EXISTS orders_seller_updated_idx;
CREATE INDEX IF NOT EXISTS orders_user_changed_idx ON orders (user_id, updated_at, id);
CREATE INDEX IF NOT EXISTS orders_seller_changed_idx ON orders (seller_id, updated_at, id);

-- Messages never change: a conversation's messages after a position, by creation.
CREATE INDEX IF NOT EXISTS messages_conversation_created_idx ON messages (conversation_id, created_at, id);

-- Posts of a room after a position: a neighbourhood post (no community) is its location's, a community post its
-- community's only (the rooms post:created goes to).
CREATE INDEX IF NOT EXISTS posts_location_changed_idx ON posts (location_id, updated_at, id) WHERE community_id IS NULL;
CREATE INDEX IF NOT EXISTS posts_community_changed_idx ON posts (community_id, updated_at, id) WHERE community_id IS NOT NULL;
