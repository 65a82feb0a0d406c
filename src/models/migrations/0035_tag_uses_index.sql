-- Trending tags without a table of their own (issue 36's write cost; docs/modules/search.md, "Hashtags").
--
-- Migration 0029 kept post_tag_uses, one row per (post, tag) of neighbourhood posts, by an AFTER trigger on posts:
-- every tagged post paid a PL/pgSQL call, an INSERT through SPI, a speculative insertion per tag (ON CONFLICT),
-- a foreign-key check per tag (locking the new post's row) and two B-tree entries per tag: about 0.7 KB of WAL and
-- 0.04 ms of the server's CPU per post (0.25 -> 0.21 ms, 0.11 without search). The same rows, read the same
-- way, are a partial index on posts: one entry per tagged neighbourhood post that is not hidden, with the place and
-- time as its key and the author and the tags beside them. PostgreSQL keeps it on insert, edit of the text (tags),
-- change of place and moderation (hidden_at) and deletion, as the trigger did; trending near a place still reads
-- the last day's entries of about 25 places (an index range each), never all posts.
CREATE INDEX posts_tag_uses_idx ON posts (location_id, created_at) INCLUDE (user_id, tags)
  WHERE tags <> '{}'::text[] AND hidden_at IS NULL AND location_id IS NOT NULL;

DROP TRIGGER posts_tag_uses ON posts;
DROP FUNCTION posts_tag_uses();
DROP TABLE post_tag_uses;
