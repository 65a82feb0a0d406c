-- Foundation: extensions, users, tokens, password resets, locations (base), notifications.
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE locations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL DEFAULT '',
  country text, state text, county text, district text, city text, town text, village text, hamlet text,
  municipality text, suburb text, borough text, quarter text, neighbourhood text, road text, building text,
  commercial text, amenity text,
  latitude double precision,
  longitude double precision,
  -- The original point, and the centre of the user cluster that the boundary is drawn around.
  point geography(Point, 4326),
  center geography(Point, 4326),
  center_latitude double precision,
  center_longitude double precision,
  estimated_radius integer NOT NULL DEFAULT 500 CHECK (estimated_radius BETWEEN 200 AND 2000),
  last_boundary_update timestamptz,
  name_suggestions jsonb NOT NULL DEFAULT '{}'::jsonb,
  total_users integer NOT NULL DEFAULT 0 CHECK (total_users >= 0),
  confidence_score double precision NOT NULL DEFAULT 0 CHECK (confidence_score BETWEEN 0 AND 1),
  needs_verification boolean NOT NULL DEFAULT false,
  is_auto_generated boolean NOT NULL DEFAULT false,
  moderator_approved boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX locations_point_gix ON locations USING gist (point);
CREATE INDEX locations_center_gix ON locations USING gist (center);
CREATE INDEX locations_name_trgm ON locations USING gin (name gin_trgm_ops);
CREATE INDEX locations_city_idx ON locations (lower(city));
CREATE INDEX locations_neighbourhood_idx ON locations (lower(neighbourhood));

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  username text NOT NULL,
  display_name text NOT NULL,
  password_hash text NOT NULL,
  bio text NOT NULL DEFAULT '',
  website text NOT NULL DEFAULT '',
  profile_picture text,
  banner text,
  relationship_status text CHECK (relationship_status IN
    ('lonely_af','forever_alone','looking_for_love','taken','emotionally_unavailable','waiting','swiping','career_married')),
  latitude numeric(11, 8),
  longitude numeric(11, 8),
  point geography(Point, 4326),
  location_id uuid REFERENCES locations(id) ON DELETE SET NULL,
  is_verified boolean NOT NULL DEFAULT false,
  is_staff boolean NOT NULL DEFAULT false,
  is_admin boolean NOT NULL DEFAULT false,
  is_active boolean NOT NULL DEFAULT true,
  -- The user's own code to invite others, and the code (and campaign fields) they registered with.
  referral_code text NOT NULL,
  referrer_code text,
  referred_by_id uuid REFERENCES users(id) ON DELETE SET NULL,
  ref_source text,
  ref_medium text,
  ref_campaign text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE UNIQUE INDEX users_referral_code_key ON users (referral_code);
CREATE INDEX users_location_idx ON users (location_id);
CREATE INDEX users_point_gix ON users USING gist (point);
CREATE INDEX users_username_trgm ON users USING gin (username gin_trgm_ops);
CREATE INDEX users_display_name_trgm ON users USING gin (display_name gin_trgm_ops);

-- Every refresh token ever issued. Rotation revokes the presented one; presenting a revoked one
-- again means it was stolen, and the whole family (one login's chain of rotations) is revoked.
CREATE TABLE refresh_tokens (
  jti uuid PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  family_id uuid NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user_idx ON refresh_tokens (user_id);

-- One pending password reset per user: a new request replaces the old code and unlocks.
CREATE TABLE password_resets (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  otp_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  failed_attempts integer NOT NULL DEFAULT 0,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE notifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  actor_id uuid REFERENCES users(id) ON DELETE SET NULL,
  notification_type text NOT NULL CHECK (notification_type IN
    ('mention','post_like','post_reply','comment_reply','new_post','new_message','general')),
  target_id uuid,
  target_type text,
  message text NOT NULL,
  is_read boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notifications_user_created_idx ON notifications (user_id, created_at DESC, id DESC);
CREATE INDEX notifications_user_updated_idx ON notifications (user_id, updated_at);
