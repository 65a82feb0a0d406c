-- The feed's visibility conditions (src/modules/policy: the author is not hidden from the reader, the post is not
-- hidden by moderation unless the reader wrote it) read posts.user_id and posts.hidden_at of every candidate post
-- of every ranked place. Carried in the ranking indexes, the candidates are still read from the index alone (an
-- index-only scan), as the statement without the conditions reads them, instead of one heap row each (issue 33:
-- the feed with its visibility conditions at 0.65 of the same statement without them, from those heap reads).
-- user_id never changes; hidden_at changes only on a moderation decision.
DROP INDEX IF EXISTS posts_location_rank_idx;
CREATE INDEX posts_location_rank_idx ON posts (location_id, rank_score DESC, id DESC) INCLUDE (created_at, user_id, hidden_at) WHERE location_id IS NOT NULL;
DROP INDEX IF EXISTS posts_rank_idx;
CREATE INDEX posts_rank_idx ON posts (rank_score DESC, id DESC) INCLUDE (created_at, location_id, user_id, hidden_at) WHERE location_id IS NOT NULL;
