-- Feeds (README, Feeds): a post's rank is a number that does not decay with time, so the order of two posts
-- never changes while time passes and a page is read from an index, never by scoring the posts table.
--   rank_score = epoch milliseconds of created_at + round(6 h × ln(1 + likes + 2 × comments + 0.05 × views)) in ms
-- Engagement buys recency: each e-fold of engagement is worth 6 hours. The score only grows (an unlike
-- keeps the boost it gave), so an item a reader was already shown never falls below the reader's cursor and
-- can never be shown again on a later page. Distance is applied per location at read time (feeds/ranking.ts).
CREATE FUNCTION feed_rank_score(created timestamptz, likes integer, comments integer, views integer) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT floor(extract(epoch FROM created) * 1000)::bigint
       + round(21600000 * ln(1 + greatest(0, likes) + 2.0 * greatest(0, comments) + 0.05 * greatest(0, views)))::bigint
$$;

ALTER TABLE posts ADD COLUMN rank_score bigint;
UPDATE posts SET rank_score = feed_rank_score(created_at, likes_count, comments_count, views_count);
ALTER TABLE posts ALTER COLUMN rank_score SET NOT NULL;

CREATE FUNCTION posts_set_rank_score() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.rank_score := feed_rank_score(NEW.created_at, NEW.likes_count, NEW.comments_count, NEW.views_count);
  ELSE
    NEW.rank_score := greatest(OLD.rank_score, feed_rank_score(NEW.created_at, NEW.likes_count, NEW.comments_count, NEW.views_count));
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER posts_rank_score_insert BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION posts_set_rank_score();
CREATE TRIGGER posts_rank_score_update BEFORE UPDATE OF likes_count, comments_count, views_count, created_at ON posts
  FOR EACH ROW EXECUTE FUNCTION posts_set_rank_score();

-- One location's posts best first (neighbourhood, location and the general feed's near tier), and every
-- location post best first (the general feed's far tier). Community posts (no location) are not in feeds.
-- created_at (the snapshot filter) and location_id (the far tier's exclusion) are included, so ranking a page
-- is an index-only scan: only the page's own posts are read from the table.
CREATE INDEX posts_location_rank_idx ON posts (location_id, rank_score DESC, id DESC) INCLUDE (created_at) WHERE location_id IS NOT NULL;
CREATE INDEX posts_rank_idx ON posts (rank_score DESC, id DESC) INCLUDE (created_at, location_id) WHERE location_id IS NOT NULL;
-- Users of a place, newest first (the people enhancement).
CREATE INDEX users_location_created_idx ON users (location_id, created_at DESC, id DESC) WHERE location_id IS NOT NULL AND is_active;
