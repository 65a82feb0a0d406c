-- The kinds a neighbourhood lives on (DESIGN.md section 13, issue 38): events with RSVPs and reminders, lost and
-- found with resolution, recommendations of a store, alerts fanned out to every resident.
ALTER TABLE posts DROP CONSTRAINT IF EXISTS posts_post_type_check;
ALTER TABLE posts ADD CONSTRAINT posts_post_type_check CHECK (post_type IN
  ('text','image','product_share','store_share','community_share','poll','audio','event','lost_found','recommendation','alert'));

ALTER TABLE notifications DROP CONSTRAINT IF EXISTS notifications_notification_type_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_notification_type_check CHECK (notification_type IN
  ('mention','post_like','post_reply','comment_reply','new_post','new_message','general','alert'));

-- Lost and found: what the author reported (lost or found); `resolved_at` set once by the author's resolve, after
-- which the post reads `status: 'resolved'`.
ALTER TABLE posts ADD COLUMN lost_found_status text CHECK (lost_found_status IN ('lost', 'found'));
ALTER TABLE posts ADD COLUMN resolved_at timestamptz;

-- A recommendation names its store in `shared_store_id` (shown as `shared_store`); the store's page lists them.
CREATE INDEX posts_recommendations_idx ON posts (shared_store_id, created_at DESC, id DESC) WHERE post_type = 'recommendation';
-- At most 3 alerts a day per person: counted over this index.
CREATE INDEX posts_user_alerts_idx ON posts (user_id, created_at DESC) WHERE post_type = 'alert';

-- A resolved lost-and-found post drops out of the feeds' first page: its rank falls 30 days (feeds rank by
-- rank_score, epoch milliseconds plus engagement; see 0012). Engagement after the resolution keeps it down.
CREATE OR REPLACE FUNCTION posts_set_rank_score() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.rank_score := feed_rank_score(NEW.created_at, NEW.likes_count, NEW.comments_count, NEW.views_count);
  ELSIF NEW.resolved_at IS NOT NULL THEN
    NEW.rank_score := feed_rank_score(NEW.created_at, NEW.likes_count, NEW.comments_count, NEW.views_count) - 2592000000;
  ELSE
    NEW.rank_score := greatest(OLD.rank_score, feed_rank_score(NEW.created_at, NEW.likes_count, NEW.comments_count, NEW.views_count));
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS posts_rank_score_update ON posts;
CREATE TRIGGER posts_rank_score_update BEFORE UPDATE OF likes_count, comments_count, views_count, created_at, resolved_at ON posts
  FOR EACH ROW EXECUTE FUNCTION posts_set_rank_score();

-- An event: when and where, and how many may come (null: no limit). The counts follow event_rsvps (trigger below),
-- and the CHECK is the last guard of the capacity (the RSVP locks this row and refuses first, with a clear answer).
-- `reminded_at`: the reminder to the people going was sent (once, by the job that sets it).
CREATE TABLE post_events (
  post_id uuid PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz,
  place_name text CHECK (char_length(place_name) <= 200),
  address text CHECK (char_length(address) <= 500),
  capacity integer CHECK (capacity > 0),
  going_count integer NOT NULL DEFAULT 0 CHECK (going_count >= 0),
  interested_count integer NOT NULL DEFAULT 0 CHECK (interested_count >= 0),
  reminded_at timestamptz,
  CHECK (ends_at IS NULL OR ends_at > starts_at),
  CHECK (capacity IS NULL OR going_count <= capacity)
);
CREATE INDEX post_events_starts_idx ON post_events (starts_at);
CREATE INDEX post_events_reminder_idx ON post_events (starts_at) WHERE reminded_at IS NULL;

-- One answer per person and event; `not_going` is no row.
CREATE TABLE event_rsvps (
  post_id uuid NOT NULL REFERENCES post_events(post_id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('going', 'interested')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (post_id, user_id)
);
CREATE INDEX event_rsvps_user_idx ON event_rsvps (user_id);
CREATE INDEX event_rsvps_going_idx ON event_rsvps (post_id, user_id) WHERE status = 'going';

-- The counts move with every RSVP row, also when an account's deletion removes its rows.
CREATE FUNCTION event_rsvps_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE post_events SET going_count = going_count - (OLD.status = 'going')::int, interested_count = interested_count - (OLD.status = 'interested')::int
    WHERE post_id = OLD.post_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE post_events SET going_count = going_count + (NEW.status = 'going')::int, interested_count = interested_count + (NEW.status = 'interested')::int
    WHERE post_id = NEW.post_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER event_rsvps_count AFTER INSERT OR UPDATE OF status OR DELETE ON event_rsvps FOR EACH ROW EXECUTE FUNCTION event_rsvps_count();

-- An alert's residents are read in batches by id (keyset), place by place.
CREATE INDEX users_location_id_idx ON users (location_id, id) WHERE location_id IS NOT NULL AND is_active;
