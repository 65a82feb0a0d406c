-- Search (DESIGN.md section 11, issue 36; docs/modules/search.md says what matches what).
--
-- Accent folding: the unaccent dictionary inside two text search configurations, so that to_tsvector(config, text)
-- stays IMMUTABLE and can feed a generated column (the function unaccent() is only STABLE). PostgreSQL ships
-- unaccent in contrib; PGlite 0.5.8 ships it as @electric-sql/pglite/contrib/unaccent (loaded by the embedded
-- database's process beside PostGIS and pg_trgm).
--   hl_search:        unaccent, then the English Snowball stemmer (plumbers -> plumber, café -> cafe).
--   hl_search_prefix: unaccent only, no stemming, no stop words: the words as written, for type-ahead prefixes
--                     ("plumbin" is a prefix of "plumbing" but not of its stem "plumb").
CREATE EXTENSION IF NOT EXISTS unaccent;

CREATE TEXT SEARCH CONFIGURATION hl_search (COPY = english);
ALTER TEXT SEARCH CONFIGURATION hl_search ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;
CREATE TEXT SEARCH CONFIGURATION hl_search_prefix (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION hl_search_prefix ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, hword, hword_part, word WITH unaccent, simple;

-- Hashtags: #word, letters of any script, digits and _, 1 to 50 of them, not glued to a word, a # or a / before it
-- (no tags inside URLs or "C#"), stored lower case and once. Computed by the database on every insert and on every
-- change of the text, so every way a post or comment is written (and any new kind of post) gets its tags.
CREATE FUNCTION hl_hashtags(body text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(t ORDER BY first_at), '{}') FROM (
    SELECT lower(m[1]) AS t, min(ord) AS first_at
      FROM regexp_matches(coalesce(body, ''), '(?:^|[^[:alnum:]_#/&])#([[:alnum:]_]{1,50})(?![[:alnum:]_])', 'g') WITH ORDINALITY AS r(m, ord)
     GROUP BY lower(m[1])) x
$$;

ALTER TABLE posts ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
ALTER TABLE comments ADD COLUMN tags text[] NOT NULL DEFAULT '{}';

CREATE FUNCTION posts_set_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.tags := hl_hashtags(coalesce(NEW.title, '') || E'\n' || coalesce(NEW.content, ''));
  RETURN NEW;
END $$;
CREATE TRIGGER posts_set_tags BEFORE INSERT OR UPDATE OF title, content ON posts FOR EACH ROW EXECUTE FUNCTION posts_set_tags();

CREATE FUNCTION comments_set_tags() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.tags := hl_hashtags(NEW.content);
  RETURN NEW;
END $$;
CREATE TRIGGER comments_set_tags BEFORE INSERT OR UPDATE OF content ON comments FOR EACH ROW EXECUTE FUNCTION comments_set_tags();

-- The searchable text: title (weight A), content warning (C), content (B) stemmed, and the same words unstemmed
-- (D, the prefix configuration) for type-ahead. Generated, so it can never disagree with the text.
ALTER TABLE posts ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('hl_search'::regconfig, coalesce(title, '')), 'A')
  || setweight(to_tsvector('hl_search'::regconfig, coalesce(content_warning, '')), 'C')
  || setweight(to_tsvector('hl_search'::regconfig, content), 'B')
  || setweight(to_tsvector('hl_search_prefix'::regconfig, coalesce(title, '') || ' ' || content), 'D')
) STORED;
CREATE INDEX posts_search_gin ON posts USING gin (search_vector);
CREATE INDEX posts_tags_gin ON posts USING gin (tags);

ALTER TABLE comments ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('hl_search'::regconfig, content), 'B')
  || setweight(to_tsvector('hl_search_prefix'::regconfig, content), 'D')
) STORED;
CREATE INDEX comments_search_gin ON comments USING gin (search_vector);
CREATE INDEX comments_tags_gin ON comments USING gin (tags);

-- Names: words (stores, products, communities with their descriptions) as tsvectors too; typos go through the
-- trigram indexes that 0001/0008/0009 already hold on the names.
ALTER TABLE stores ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('hl_search'::regconfig, name), 'A') || setweight(to_tsvector('hl_search'::regconfig, description), 'C')
  || setweight(to_tsvector('hl_search_prefix'::regconfig, name), 'D')
) STORED;
CREATE INDEX stores_search_gin ON stores USING gin (search_vector);
ALTER TABLE products ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('hl_search'::regconfig, name), 'A') || setweight(to_tsvector('hl_search'::regconfig, description), 'C')
  || setweight(to_tsvector('hl_search_prefix'::regconfig, name), 'D')
) STORED;
CREATE INDEX products_search_gin ON products USING gin (search_vector);
ALTER TABLE communities ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('hl_search'::regconfig, name), 'A') || setweight(to_tsvector('hl_search'::regconfig, description), 'C')
  || setweight(to_tsvector('hl_search_prefix'::regconfig, name), 'D')
) STORED;
CREATE INDEX communities_search_gin ON communities USING gin (search_vector);
ALTER TABLE locations ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('hl_search'::regconfig, name), 'A')
  || setweight(to_tsvector('hl_search'::regconfig, coalesce(neighbourhood, '') || ' ' || coalesce(suburb, '') || ' ' || coalesce(city, '') || ' ' || coalesce(town, '') || ' ' || coalesce(village, '')), 'C')
  || setweight(to_tsvector('hl_search_prefix'::regconfig, name), 'D')
) STORED;
CREATE INDEX locations_search_gin ON locations USING gin (search_vector);
ALTER TABLE users ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('hl_search_prefix'::regconfig, username), 'A') || setweight(to_tsvector('hl_search'::regconfig, display_name), 'A')
  || setweight(to_tsvector('hl_search_prefix'::regconfig, display_name), 'D')
) STORED;
CREATE INDEX users_search_gin ON users USING gin (search_vector);

-- A person who does not want to be found: not found by name, their posts and comments not searchable.
ALTER TABLE users ADD COLUMN discoverable boolean NOT NULL DEFAULT true;

-- Trending tags: one row per (post, tag) of neighbourhood posts, kept by triggers on posts (insert, change of text,
-- place or moderation, delete through the cascade). Trending near a place reads the rows of the last 24 hours of the
-- place and its neighbours (index below), never the posts table.
CREATE TABLE post_tag_uses (
  post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  tag text NOT NULL,
  user_id uuid NOT NULL,
  location_id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (post_id, tag)
);
CREATE INDEX post_tag_uses_place_idx ON post_tag_uses (location_id, created_at DESC);

CREATE FUNCTION posts_tag_uses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.tags IS NOT DISTINCT FROM OLD.tags AND NEW.location_id IS NOT DISTINCT FROM OLD.location_id
       AND (NEW.hidden_at IS NULL) = (OLD.hidden_at IS NULL) THEN
      RETURN NULL;
    END IF;
    DELETE FROM post_tag_uses WHERE post_id = NEW.id;
  END IF;
  IF NEW.location_id IS NOT NULL AND NEW.hidden_at IS NULL AND cardinality(NEW.tags) > 0 THEN
    INSERT INTO post_tag_uses (post_id, tag, user_id, location_id, created_at)
    SELECT NEW.id, t, NEW.user_id, NEW.location_id, NEW.created_at FROM unnest(NEW.tags) AS t
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER posts_tag_uses AFTER INSERT OR UPDATE OF tags, location_id, hidden_at ON posts FOR EACH ROW EXECUTE FUNCTION posts_tag_uses();

-- What already exists: tags of the posts and comments written before (the triggers above fill post_tag_uses).
UPDATE posts SET tags = hl_hashtags(coalesce(title, '') || E'\n' || content) WHERE content LIKE '%#%' OR title LIKE '%#%';
UPDATE comments SET tags = hl_hashtags(content) WHERE content LIKE '%#%';
