-- Nearby users is measured between published grid cells, never between exact points (README, Users): a caller
-- who may move its own point freely could otherwise binary-search the edge of the 100 km circle, or the order of
-- two users, and trilaterate anyone to within metres. public_point is the centre of the cell (the grid of
-- src/modules/locations/public-grid.ts: rows of 0.005° latitude, each cut into a whole number of cells) that the
-- user's point lies in; it is internal like the point itself, and kept by a trigger whichever code sets the point.
CREATE OR REPLACE FUNCTION public_grid_cell_centre(p geography) RETURNS geography
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH pt AS (SELECT ST_Y(p::geometry) AS lat, ST_X(p::geometry) AS lon),
  r AS (SELECT lon, least(17999, greatest(-18000, floor(lat / 0.005)))::int AS row FROM pt),
  c AS (SELECT lon, row, greatest(1, floor(360 * cos(radians((row + 0.5) * 0.005)) / 0.005))::int AS columns FROM r),
  k AS (SELECT row, columns, ((floor((lon + 180) / 360 * columns)::int % columns) + columns) % columns AS col FROM c)
  SELECT ST_SetSRID(ST_MakePoint(round((-180 + (col + 0.5) * 360.0 / columns)::numeric, 6)::float8,
                                 round(((row + 0.5) * 0.005)::numeric, 6)::float8), 4326)::geography
  FROM k
$$;

ALTER TABLE users ADD COLUMN IF NOT EXISTS public_point geography(Point, 4326);

CREATE OR REPLACE FUNCTION users_set_public_point() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.public_point := CASE WHEN NEW.point IS NULL THEN NULL ELSE public_grid_cell_centre(NEW.point) END;
  RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS users_public_point ON users;
CREATE TRIGGER users_public_point BEFORE INSERT OR UPDATE OF point ON users
  FOR EACH ROW EXECUTE FUNCTION users_set_public_point();

UPDATE users SET public_point = public_grid_cell_centre(point) WHERE point IS NOT NULL;
CREATE INDEX IF NOT EXISTS users_public_point_gix ON users USING gist (public_point);
