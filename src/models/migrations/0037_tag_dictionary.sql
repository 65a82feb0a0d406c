-- The tags found by a search read a dictionary of tags, not every tag use (docs/modules/search.md, "Hashtags").
--
-- Until now search.query counted the tags found from posts_tag_uses_idx (0035): for a prefix (every type-ahead
-- keystroke) it read every tagged neighbourhood post ever written, so its cost grew with the posts. tag_stats holds
-- each tag once with the number of posts that count for it (tagged neighbourhood posts not hidden: the predicate
-- of posts_tag_uses_idx, search.queries.ts tagUsesIndexed), so a search reads the tags it finds and nothing else.
--
-- `tag` is COLLATE "C" (code point order, as tags are lower case in any script): its primary key then serves
-- `tag LIKE 'prefix%'` as a range, with no second index.
CREATE TABLE tag_stats (
  tag text COLLATE "C" PRIMARY KEY,
  posts_count int NOT NULL,
  -- When it was last counted (by search.tag_stats_refresh, or entered by a post's trigger, counted 1); NULL, which
  -- nothing writes today, would be counted first.
  refreshed_at timestamptz
);
-- The job's rotation: the least recently counted first.
CREATE INDEX tag_stats_refreshed_idx ON tag_stats (refreshed_at ASC NULLS FIRST);

-- The job's high-water mark: the posts created up to this time have had their tags counted.
CREATE TABLE tag_stats_state (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  counted_until timestamptz NOT NULL
);

INSERT INTO tag_stats (tag, posts_count, refreshed_at)
SELECT t.tag, count(*), now()
  FROM posts p CROSS JOIN LATERAL unnest(p.tags) AS t(tag)
 WHERE p.tags <> '{}'::text[] AND p.hidden_at IS NULL AND p.location_id IS NOT NULL
 GROUP BY t.tag;
INSERT INTO tag_stats_state (counted_until) VALUES (now());

-- New tags are found at once: the trigger that computes a post's tags (0029) also enters them, for a post that
-- counts (a neighbourhood post not hidden), on insert and when an edit changes them, counted 1 as of now. A tag already there
-- is left as it is (ON CONFLICT DO NOTHING finds it in the primary key and writes nothing, takes no lock), so a
-- popular tag is no hot row that its writers queue on; the counts are the job's (search.tag_stats_refresh, every
-- 5 minutes), which also counts again a tag that had dropped to 0 and is used again. A post without tags pays the
-- test of its empty array and nothing more (hl_hashtags does not scan text without '#', 0033). Measured: the insert
-- of two tags already there, 7 us, no WAL (docs/modules/search.md, "Measured"); checking first whether the tags are
-- there (a NOT EXISTS, a count), or reviving a tag at 0 here, cost more than the insert they would spare.
CREATE OR REPLACE FUNCTION posts_set_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.tags := hl_hashtags(coalesce(NEW.title, '') || E'\n' || coalesce(NEW.content, ''));
  IF NEW.tags <> '{}'::text[] AND NEW.location_id IS NOT NULL AND NEW.hidden_at IS NULL
     AND (TG_OP = 'INSERT' OR NEW.tags IS DISTINCT FROM OLD.tags) THEN
    INSERT INTO tag_stats (tag, posts_count, refreshed_at) SELECT unnest(NEW.tags), 1, now() ON CONFLICT DO NOTHING;
  END IF;
  RETURN NEW;
END $$;
