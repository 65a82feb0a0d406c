-- Account deletion (DESIGN.md section 9, Leaving; docs/modules/leaving.md).

-- An order outlives its buyer's account: the seller keeps the line (product, quantity, prices, status) with the buyer
-- removed, as an order already outlived its seller's account (seller_id ON DELETE SET NULL, 0008).
ALTER TABLE orders ALTER COLUMN user_id DROP NOT NULL;
ALTER TABLE orders DROP CONSTRAINT orders_user_id_fkey;
ALTER TABLE orders ADD CONSTRAINT orders_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE SET NULL;

-- Deleting a user reaches every row that names it through these columns, by the foreign key's own action or by the
-- leaving steps' statements. Each column gets an index that starts with it, so that one account's deletion reads its
-- own rows instead of scanning a whole table (messages and notifications grow without bound). Partial: the NULLs,
-- which no deletion looks for, are left out.
CREATE INDEX IF NOT EXISTS notifications_actor_idx ON notifications (actor_id) WHERE actor_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_sender_idx ON messages (sender_id) WHERE sender_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS conversations_created_by_idx ON conversations (created_by) WHERE created_by IS NOT NULL;
CREATE INDEX IF NOT EXISTS location_moderation_logs_actor_idx ON location_moderation_logs (actor_id) WHERE actor_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS users_referred_by_idx ON users (referred_by_id) WHERE referred_by_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS comment_likes_user_idx ON comment_likes (user_id);
CREATE INDEX IF NOT EXISTS comment_bookmarks_user_idx ON comment_bookmarks (user_id);
CREATE INDEX IF NOT EXISTS poll_votes_user_idx ON poll_votes (user_id);
CREATE INDEX IF NOT EXISTS community_post_fanouts_actor_idx ON community_post_fanouts (actor_id) WHERE actor_id IS NOT NULL;

-- What the account's rows cascade to must be found the same way: a foreign key's ON DELETE action runs one query per
-- deleted row, and without an index on the referencing column each is a scan of the whole referencing table
-- (50,000 posts each scanned every comment: minutes). comments_post_top_idx (0010) is partial on top-level comments,
-- which that query cannot use. A partial index `WHERE column IS NOT NULL` serves it (its `column = $1` implies it).
CREATE INDEX IF NOT EXISTS comments_post_idx ON comments (post_id);
CREATE INDEX IF NOT EXISTS orders_product_idx ON orders (product_id) WHERE product_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS orders_store_idx ON orders (store_id) WHERE store_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS posts_shared_product_idx ON posts (shared_product_id) WHERE shared_product_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS posts_shared_store_idx ON posts (shared_store_id) WHERE shared_store_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS posts_shared_community_idx ON posts (shared_community_id) WHERE shared_community_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS conversations_last_message_idx ON conversations (last_message_id) WHERE last_message_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS conversation_participants_last_read_idx ON conversation_participants (last_read_message_id) WHERE last_read_message_id IS NOT NULL;

-- Stored files whose rows are gone, to be deleted from storage (disk or S3) after the commit that removed the rows.
-- Storage is not transactional: the keys are written in the deleting transaction (so a rolled-back deletion deletes
-- no file, and a committed one always has its files listed), then worked off after the commit; a key whose deletion
-- failed, or whose process died first, is retried by the media.file_deletions job.
CREATE TABLE file_deletions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key text NOT NULL,
  queued_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0
);
