-- Posts and comments: every post type, likes, bookmarks, views, polls, audio, comments and replies.
-- Counters are columns kept in the same transaction as the row that changes them (single-statement
-- UPDATE ... SET n = n + 1), with primary keys that make toggles and votes unique per user.
--
-- A community post goes with its community (a deleted community is gone, migration 0009); a share post stays
-- when the product, store or community it shares is deleted, and shows it as null.
CREATE TABLE posts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  post_type text NOT NULL CHECK (post_type IN ('text','image','product_share','store_share','community_share','poll','audio')),
  title text CHECK (char_length(title) <= 255),
  content text NOT NULL DEFAULT '' CHECK (char_length(content) <= 5000),
  -- A neighbourhood post has the author's location; a community post has a community and no location.
  location_id uuid REFERENCES locations(id) ON DELETE SET NULL,
  community_id uuid REFERENCES communities(id) ON DELETE CASCADE,
  shared_product_id uuid REFERENCES products(id) ON DELETE SET NULL,
  shared_store_id uuid REFERENCES stores(id) ON DELETE SET NULL,
  shared_community_id uuid REFERENCES communities(id) ON DELETE SET NULL,
  likes_count integer NOT NULL DEFAULT 0 CHECK (likes_count >= 0),
  bookmarks_count integer NOT NULL DEFAULT 0 CHECK (bookmarks_count >= 0),
  comments_count integer NOT NULL DEFAULT 0 CHECK (comments_count >= 0),
  views_count integer NOT NULL DEFAULT 0 CHECK (views_count >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX posts_location_created_idx ON posts (location_id, created_at DESC, id DESC);
CREATE INDEX posts_community_created_idx ON posts (community_id, created_at DESC, id DESC) WHERE community_id IS NOT NULL;
CREATE INDEX posts_user_created_idx ON posts (user_id, created_at DESC);
CREATE INDEX posts_created_idx ON posts (created_at DESC, id DESC);

-- Images of an image post, in the order they were sent.
CREATE TABLE post_media (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  file text NOT NULL,
  media_type text NOT NULL DEFAULT 'image',
  position integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (post_id, position)
);

CREATE TABLE post_likes (
  post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (post_id, user_id)
);
CREATE INDEX post_likes_user_idx ON post_likes (user_id, created_at DESC);

CREATE TABLE post_bookmarks (
  post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (post_id, user_id)
);
CREATE INDEX post_bookmarks_user_idx ON post_bookmarks (user_id, created_at DESC);

-- Every counted view (the analytics history). A viewer is a user, or an anonymous client (IP + user agent).
CREATE TABLE post_views (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  user_id uuid REFERENCES users(id) ON DELETE CASCADE,
  device_type text,
  referrer_type text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX post_views_user_idx ON post_views (user_id, created_at) WHERE user_id IS NOT NULL;
CREATE INDEX post_views_post_idx ON post_views (post_id);

-- The 30-minute view cooldown: one row per (post, viewer) holding the last counted view. A row past its
-- cooldown is dead weight (the next view replaces it anyway); the view-cooldown cleanup job deletes those.
CREATE TABLE post_view_cooldowns (
  post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  viewer_key text NOT NULL,
  viewed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (post_id, viewer_key)
);
CREATE INDEX post_view_cooldowns_viewed_idx ON post_view_cooldowns (viewed_at);

CREATE TABLE polls (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  post_id uuid NOT NULL UNIQUE REFERENCES posts(id) ON DELETE CASCADE,
  question text NOT NULL CHECK (char_length(question) BETWEEN 1 AND 500),
  allows_multiple_choices boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  -- Set once by the poll expiry job when it pushed poll:expired; reads compute is_expired from the clock.
  expiry_announced_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX polls_expiry_due_idx ON polls (expires_at) WHERE expiry_announced_at IS NULL;

CREATE TABLE poll_options (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  poll_id uuid NOT NULL REFERENCES polls(id) ON DELETE CASCADE,
  option_text text NOT NULL CHECK (char_length(option_text) BETWEEN 1 AND 200),
  position integer NOT NULL,
  votes_count integer NOT NULL DEFAULT 0 CHECK (votes_count >= 0),
  UNIQUE (poll_id, position)
);

CREATE TABLE poll_votes (
  poll_id uuid NOT NULL REFERENCES polls(id) ON DELETE CASCADE,
  option_id uuid NOT NULL REFERENCES poll_options(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (option_id, user_id)
);
CREATE INDEX poll_votes_poll_user_idx ON poll_votes (poll_id, user_id);

CREATE TABLE post_audio (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  post_id uuid NOT NULL UNIQUE REFERENCES posts(id) ON DELETE CASCADE,
  file text NOT NULL,
  duration_seconds integer NOT NULL CHECK (duration_seconds >= 0),
  transcription text,
  waveform_data jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE comments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- Replies nest without limit; deleting a comment deletes its whole thread below it.
  parent_id uuid REFERENCES comments(id) ON DELETE CASCADE,
  content text NOT NULL CHECK (char_length(content) BETWEEN 1 AND 5000),
  replies_count integer NOT NULL DEFAULT 0 CHECK (replies_count >= 0),
  likes_count integer NOT NULL DEFAULT 0 CHECK (likes_count >= 0),
  bookmarks_count integer NOT NULL DEFAULT 0 CHECK (bookmarks_count >= 0),
  views_count integer NOT NULL DEFAULT 0 CHECK (views_count >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comments_post_top_idx ON comments (post_id, created_at, id) WHERE parent_id IS NULL;
CREATE INDEX comments_parent_idx ON comments (parent_id, created_at, id) WHERE parent_id IS NOT NULL;
CREATE INDEX comments_user_idx ON comments (user_id);

CREATE TABLE comment_likes (
  comment_id uuid NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (comment_id, user_id)
);

CREATE TABLE comment_bookmarks (
  comment_id uuid NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (comment_id, user_id)
);

-- A like taken back and given again does not notify twice: the like toggle looks for an earlier post_like
-- of this actor on this post, which must not scan every notification a popular author ever received.
CREATE INDEX notifications_post_like_idx ON notifications (target_id, actor_id) WHERE notification_type = 'post_like';
