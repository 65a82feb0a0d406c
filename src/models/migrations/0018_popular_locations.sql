-- popular_locations (issue 22): the 20 locations with the most posts, counted by a job every minute
-- (posts.popular_locations_refresh) instead of by a GROUP BY over every post on each call. A read joins the
-- locations for their names and levels, so a renamed place shows its new name at once; its count may be up to one
-- refresh old.
CREATE MATERIALIZED VIEW popular_location_counts AS
  SELECT location_id, count(*)::int AS post_count
  FROM posts WHERE location_id IS NOT NULL
  GROUP BY location_id ORDER BY count(*) DESC, location_id LIMIT 20;

-- REFRESH MATERIALIZED VIEW CONCURRENTLY needs a unique index; it lets reads go on while a refresh counts.
CREATE UNIQUE INDEX popular_location_counts_location_idx ON popular_location_counts (location_id);
