-- Smart locations: name suggestions (consensus naming), the moderation log, and the bookkeeping the
-- nightly boundary job needs. The locations table itself came with 0001.

-- One active suggestion per user and location: a new suggestion replaces the user's previous one.
CREATE TABLE location_name_suggestions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  location_id uuid NOT NULL REFERENCES locations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  suggested_name text NOT NULL CHECK (char_length(suggested_name) BETWEEN 2 AND 100),
  vote_weight double precision NOT NULL CHECK (vote_weight >= 0),
  is_approved boolean NOT NULL DEFAULT false,
  is_flagged boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX location_name_suggestions_location_user_key ON location_name_suggestions (location_id, user_id);
CREATE INDEX location_name_suggestions_user_idx ON location_name_suggestions (user_id, created_at DESC);
CREATE INDEX location_name_suggestions_created_idx ON location_name_suggestions (created_at DESC, id DESC);

-- Audit trail: every name change, boundary recalculation, flag and administrative action.
CREATE TABLE location_moderation_logs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  location_id uuid NOT NULL REFERENCES locations(id) ON DELETE CASCADE,
  actor_id uuid REFERENCES users(id) ON DELETE SET NULL,
  action text NOT NULL CHECK (action IN ('name_changed', 'boundary_recalculated', 'flagged', 'admin_update')),
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX location_moderation_logs_location_idx ON location_moderation_logs (location_id, created_at DESC);

-- When the members of a location (or their coordinates) last changed, whichever code path moved them:
-- the nightly job recalculates the boundaries of locations changed since their last recalculation.
ALTER TABLE locations ADD COLUMN members_changed_at timestamptz;
CREATE INDEX locations_members_changed_idx ON locations (members_changed_at) WHERE members_changed_at IS NOT NULL;
CREATE INDEX locations_total_users_idx ON locations (total_users DESC, id);
CREATE INDEX locations_state_idx ON locations (lower(state));
CREATE INDEX locations_country_idx ON locations (lower(country));

CREATE FUNCTION locations_mark_members_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.location_id IS NOT NULL THEN
      UPDATE locations SET members_changed_at = now() WHERE id = NEW.location_id;
    END IF;
  ELSIF TG_OP = 'DELETE' THEN
    IF OLD.location_id IS NOT NULL THEN
      UPDATE locations SET members_changed_at = now() WHERE id = OLD.location_id;
    END IF;
  ELSIF OLD.location_id IS DISTINCT FROM NEW.location_id
     OR OLD.latitude IS DISTINCT FROM NEW.latitude
     OR OLD.longitude IS DISTINCT FROM NEW.longitude THEN
    UPDATE locations SET members_changed_at = now() WHERE id IN (OLD.location_id, NEW.location_id);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER users_location_members_changed
  AFTER INSERT OR DELETE OR UPDATE OF location_id, latitude, longitude ON users
  FOR EACH ROW EXECUTE FUNCTION locations_mark_members_changed();
