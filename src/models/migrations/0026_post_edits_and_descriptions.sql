-- Posts people can fix and describe (DESIGN.md section 13, issue 38).
--
-- Edits: `edited_at` is null until the text of a post (content, title, content warning) or a comment (content) is
-- changed by its author. Each edit first copies the version it replaces into post_versions / comment_versions, in the
-- edit's transaction; the rows go with the post or comment (cascade), and with the author's account. They are kept as
-- long as the item is (docs/modules/posts.md, "Edits").
ALTER TABLE posts ADD COLUMN edited_at timestamptz;
ALTER TABLE comments ADD COLUMN edited_at timestamptz;

-- Describing: a content warning apps show in place of the content until tapped, and each image's alt text.
ALTER TABLE posts ADD COLUMN content_warning text CHECK (char_length(content_warning) <= 200);
ALTER TABLE post_media ADD COLUMN alt_text text CHECK (char_length(alt_text) <= 1500);

-- An earlier version of a post: what it said until `replaced_at`; `edited_at` is when that version itself was made by
-- an edit (null for the version first posted).
CREATE TABLE post_versions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title text,
  content text NOT NULL,
  content_warning text,
  edited_at timestamptz,
  replaced_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX post_versions_post_idx ON post_versions (post_id, replaced_at DESC, id DESC);
CREATE INDEX post_versions_user_idx ON post_versions (user_id, replaced_at DESC, id DESC);

CREATE TABLE comment_versions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  comment_id uuid NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  content text NOT NULL,
  edited_at timestamptz,
  replaced_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comment_versions_comment_idx ON comment_versions (comment_id, replaced_at DESC, id DESC);
CREATE INDEX comment_versions_user_idx ON comment_versions (user_id, replaced_at DESC, id DESC);
