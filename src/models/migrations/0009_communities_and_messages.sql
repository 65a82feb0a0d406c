-- Communities (with their categories and category groups) and direct messages (issue 9).

CREATE TABLE community_category_groups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL UNIQUE,
  position integer NOT NULL DEFAULT 0
);

CREATE TABLE community_categories (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  group_id uuid NOT NULL REFERENCES community_category_groups(id) ON DELETE CASCADE,
  name text NOT NULL UNIQUE,
  position integer NOT NULL DEFAULT 0
);
CREATE INDEX community_categories_group_idx ON community_categories (group_id, position);

-- A sensible starting set; administrators may add more later.
WITH groups(name, position, categories) AS (
  VALUES
    ('Neighbourhood', 1, ARRAY['Local news', 'Safety and alerts', 'Events', 'Lost and found', 'Recommendations']),
    ('Hobbies and interests', 2, ARRAY['Sports', 'Gardening', 'Arts and crafts', 'Music', 'Gaming', 'Books', 'Photography']),
    ('Food and commerce', 3, ARRAY['Food and drink', 'Buy and sell', 'Local business', 'Jobs']),
    ('Family and life', 4, ARRAY['Parents', 'Pets', 'Health and fitness', 'Education', 'Seniors']),
    ('Causes', 5, ARRAY['Volunteering', 'Environment', 'Housing'])
), inserted AS (
  INSERT INTO community_category_groups (name, position)
  SELECT name, position FROM groups
  RETURNING id, name
)
INSERT INTO community_categories (group_id, name, position)
SELECT inserted.id, c.name, c.ord
FROM groups
JOIN inserted ON inserted.name = groups.name
CROSS JOIN LATERAL unnest(groups.categories) WITH ORDINALITY AS c(name, ord);

-- A deleted community is gone (DELETE), its memberships with it: a community id either names a row here or nothing.
CREATE TABLE communities (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (char_length(name) BETWEEN 2 AND 100),
  description text NOT NULL DEFAULT '',
  category_id uuid NOT NULL REFERENCES community_categories(id),
  avatar text,
  banner text,
  location_id uuid REFERENCES locations(id) ON DELETE SET NULL,
  owner_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  members_count integer NOT NULL DEFAULT 0 CHECK (members_count >= 0),
  posts_count integer NOT NULL DEFAULT 0 CHECK (posts_count >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Names are unique regardless of case (two "Garden Club"s would confuse everyone).
CREATE UNIQUE INDEX communities_name_key ON communities (lower(name));
CREATE INDEX communities_owner_idx ON communities (owner_id, created_at);
CREATE INDEX communities_category_idx ON communities (category_id);
CREATE INDEX communities_location_idx ON communities (location_id) WHERE location_id IS NOT NULL;
CREATE INDEX communities_popular_idx ON communities (members_count DESC, created_at DESC, id);
-- The list's search is a substring of the name or the description.
CREATE INDEX communities_name_trgm_idx ON communities USING gin (name gin_trgm_ops);
CREATE INDEX communities_description_trgm_idx ON communities USING gin (description gin_trgm_ops);

CREATE TABLE community_members (
  community_id uuid NOT NULL REFERENCES communities(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
  joined_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (community_id, user_id)
);
CREATE INDEX community_members_user_idx ON community_members (user_id);
CREATE INDEX community_members_list_idx ON community_members (community_id, joined_at, user_id);

-- Direct messages. A 1:1 conversation carries direct_key (the two user ids, smaller first), unique, so two
-- clients opening the same pair at once end up in one conversation; group conversations have none.
CREATE TABLE conversations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  direct_key text UNIQUE,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  last_message_id uuid,
  last_message_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- seq orders messages (their timestamps can tie); last_read_seq is how far a participant has read.
CREATE TABLE messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  sender_id uuid REFERENCES users(id) ON DELETE SET NULL,
  text text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 5000),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_conversation_idx ON messages (conversation_id, seq DESC);
ALTER TABLE conversations ADD CONSTRAINT conversations_last_message_fk FOREIGN KEY (last_message_id) REFERENCES messages(id) ON DELETE SET NULL;

CREATE TABLE conversation_participants (
  conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  last_read_seq bigint NOT NULL DEFAULT 0,
  last_read_message_id uuid REFERENCES messages(id) ON DELETE SET NULL,
  last_read_at timestamptz,
  -- The conversation's last activity (its last message, else its opening), copied to every participant's row
  -- by each send, so that a user's conversation list is one walk of that user's own index entries.
  activity_at timestamptz NOT NULL DEFAULT now(),
  joined_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, user_id)
);
CREATE INDEX conversation_participants_user_activity_idx ON conversation_participants (user_id, activity_at DESC, conversation_id DESC);
