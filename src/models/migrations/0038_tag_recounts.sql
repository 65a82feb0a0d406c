-- Tags whose posts changed are counted again by the next run of search.tag_stats_refresh (every 5 minutes), not
-- when its rotation reaches them (docs/modules/search.md, "Tags found"): a spam tag whose posts moderation hid, or
-- whose author deleted them, stops being suggested within minutes instead of up to a day.
--
-- A queue, not a mark on the tag's own row: marking `tag_stats` would lock a popular tag's row until the hiding or
-- deleting transaction commits (an account deletion's included), and every post bringing that tag would wait in its
-- trigger's ON CONFLICT meanwhile. Rows appended here conflict with nothing; the job takes them (tag-stats.ts).
CREATE TABLE tag_recounts (
  tag text NOT NULL
);

-- A post that counts for its tags stops or starts counting (hidden or shown, its place lost or set), or an edit
-- changes its tags: each of its tags, before and after, is counted again. Likes, views and the other updates of
-- posts do not fire it (the column list), nor does a change of none of these (the WHEN).
CREATE FUNCTION posts_tags_recount() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tag_recounts (tag) SELECT DISTINCT t.tag FROM unnest(OLD.tags || NEW.tags) AS t(tag);
  RETURN NULL;
END $$;
CREATE TRIGGER posts_tags_recount AFTER UPDATE OF hidden_at, location_id, title, content ON posts FOR EACH ROW
  WHEN ((OLD.tags <> '{}'::text[] OR NEW.tags <> '{}'::text[])
        AND (OLD.hidden_at IS DISTINCT FROM NEW.hidden_at OR OLD.location_id IS DISTINCT FROM NEW.location_id OR OLD.tags IS DISTINCT FROM NEW.tags))
  EXECUTE FUNCTION posts_tags_recount();

-- Deleted posts (one by one, or an account's all at once): once per statement, the distinct tags of what it deleted.
CREATE FUNCTION posts_deleted_tags_recount() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tag_recounts (tag) SELECT DISTINCT t.tag FROM gone g CROSS JOIN LATERAL unnest(g.tags) AS t(tag);
  RETURN NULL;
END $$;
CREATE TRIGGER posts_deleted_tags_recount AFTER DELETE ON posts REFERENCING OLD TABLE AS gone FOR EACH STATEMENT
  EXECUTE FUNCTION posts_deleted_tags_recount();
