-- Location privacy: what a location publishes (latitude/longitude, point, center, center_latitude/longitude,
-- estimated_radius) is never finer than a ~556 m grid cell (src/modules/locations/public-grid.ts); the exact
-- boundary drawn from the members' points is kept apart, internal, in member_centroid / member_radius.
-- Bounded naming: the top name groups are stored with the consensus (lists read them, never regroup),
-- and an index answers "the heaviest distinct names of a location" without reading every suggestion row.

ALTER TABLE locations
  ADD COLUMN member_centroid geography(Point, 4326),
  ADD COLUMN member_radius integer,
  ADD COLUMN top_suggestions jsonb;

CREATE INDEX location_name_suggestions_location_name_idx ON location_name_suggestions (location_id, suggested_name) INCLUDE (vote_weight);

-- The same cell arithmetic as public-grid.ts, used once here to publish the existing rows' coordinates.
CREATE FUNCTION locations_0006_cell_centre(lat double precision, lon double precision, OUT c_lat double precision, OUT c_lon double precision)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  r integer := least(17999, greatest(-18000, floor(lat / 0.005)::integer));
  cols integer := greatest(1, floor(360 * cos(radians((r + 0.5) * 0.005)) / 0.005)::integer);
  c integer := mod(mod(floor((lon + 180) / 360 * cols)::integer, cols) + cols, cols);
BEGIN
  c_lat := round(((r + 0.5) * 0.005)::numeric, 6)::double precision;
  c_lon := round((-180 + (c + 0.5) * 360.0 / cols)::numeric, 6)::double precision;
END $$;

UPDATE locations SET member_centroid = center, member_radius = estimated_radius;

UPDATE locations l SET latitude = s.c_lat, longitude = s.c_lon, point = ST_SetSRID(ST_MakePoint(s.c_lon, s.c_lat), 4326)::geography
FROM (SELECT x.id, c.c_lat, c.c_lon FROM locations x CROSS JOIN LATERAL locations_0006_cell_centre(x.latitude, x.longitude) c
      WHERE x.latitude IS NOT NULL AND x.longitude IS NOT NULL) s
WHERE l.id = s.id;

-- Published boundary: below 10 members with coordinates the cell the location began in and 500 m; from 10 on
-- the cell of the members' centroid and the radius in 100 m steps.
WITH members AS (
  SELECT location_id, count(*) AS n FROM users WHERE point IS NOT NULL AND location_id IS NOT NULL GROUP BY location_id
), source AS (
  SELECT l.id,
         coalesce(m.n, 0) >= 10 AS follows_members,
         CASE WHEN coalesce(m.n, 0) >= 10 OR l.latitude IS NULL THEN l.center_latitude ELSE l.latitude END AS lat,
         CASE WHEN coalesce(m.n, 0) >= 10 OR l.latitude IS NULL THEN l.center_longitude ELSE l.longitude END AS lon
  FROM locations l LEFT JOIN members m ON m.location_id = l.id
  WHERE l.center_latitude IS NOT NULL AND l.center_longitude IS NOT NULL
), published AS (
  SELECT s.id, s.follows_members, c.c_lat, c.c_lon FROM source s CROSS JOIN LATERAL locations_0006_cell_centre(s.lat, s.lon) c
)
UPDATE locations l SET
  center_latitude = p.c_lat,
  center_longitude = p.c_lon,
  center = ST_SetSRID(ST_MakePoint(p.c_lon, p.c_lat), 4326)::geography,
  estimated_radius = CASE WHEN p.follows_members THEN least(2000, greatest(200, round(l.estimated_radius / 100.0)::integer * 100)) ELSE 500 END
FROM published p WHERE l.id = p.id;

DROP FUNCTION locations_0006_cell_centre(double precision, double precision);
