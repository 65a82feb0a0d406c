-- Nearby users measures users who never sent coordinates from their location's centre: this partial index
-- finds those few users of each candidate location without reading the location's whole membership
-- (bench data, 1,000,000 users: one page 98 → 16 ms).
CREATE INDEX IF NOT EXISTS users_location_without_point_idx ON users (location_id) WHERE point IS NULL;
