-- Reports and moderation (DESIGN.md section 9; rules in src/modules/safety, decisions in docs/modules/safety-moderation.md).
--
-- Moderation hides rather than deletes: a hidden post or comment stays for its author and for staff (the one post
-- rule, src/modules/posts/post-visibility.ts, and its SQL twin read these columns), so a dismissed report can bring
-- it back. NULL: not hidden.
ALTER TABLE posts ADD COLUMN hidden_at timestamptz;
ALTER TABLE comments ADD COLUMN hidden_at timestamptz;

-- A case is what staff review: one open case per reported thing, however many people report it. Its first report
-- opens it and takes the snapshot of the content as the reporter saw it then (evidence that survives an edit or a
-- deletion); later reports of the same thing join it. Resolving it resolves every report in it; a report after
-- that opens a new case.
CREATE TABLE moderation_cases (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  target_type text NOT NULL CHECK (target_type IN ('post', 'comment', 'user', 'message', 'store', 'product', 'community')),
  target_id uuid NOT NULL,
  -- Whose content it is (the author, the user itself, the owner): the subject of `suspend`. NULL once that account is gone.
  owner_id uuid REFERENCES users(id) ON DELETE SET NULL,
  snapshot jsonb NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  opened_at timestamptz NOT NULL DEFAULT now(),
  last_reported_at timestamptz NOT NULL DEFAULT now(),
  -- Set when enough established reporters hid the content pending review (MODERATION_AUTO_HIDE_REPORTS).
  auto_hidden_at timestamptz,
  resolved_at timestamptz,
  resolved_by uuid REFERENCES users(id) ON DELETE SET NULL,
  resolution text CHECK (resolution IN ('dismiss', 'hide', 'suspend')),
  resolution_note text,
  CHECK ((status = 'open') = (resolved_at IS NULL))
);
-- At most one open case per thing: a report finds it (or makes it) with one INSERT .. ON CONFLICT, which also locks
-- it, so concurrent reports of one thing are counted one after the other (auto-hide neither misses nor doubles).
CREATE UNIQUE INDEX moderation_cases_open_target_idx ON moderation_cases (target_type, target_id) WHERE status = 'open';
-- The queue: open cases oldest first; resolved ones most recently resolved first.
CREATE INDEX moderation_cases_open_idx ON moderation_cases (opened_at, id) WHERE status = 'open';
CREATE INDEX moderation_cases_resolved_idx ON moderation_cases (resolved_at DESC, id DESC) WHERE status = 'resolved';

-- One person's report. A person reports a thing once per case (again: the same report, answered 200).
CREATE TABLE safety_reports (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  case_id uuid NOT NULL REFERENCES moderation_cases(id) ON DELETE CASCADE,
  reporter_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  reason text NOT NULL CHECK (reason IN ('spam', 'harassment', 'hate', 'violence', 'sexual', 'scam', 'other')),
  details text CHECK (char_length(details) <= 1000),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (case_id, reporter_id)
);
-- The reporter's own list, newest first.
CREATE INDEX safety_reports_reporter_idx ON safety_reports (reporter_id, created_at DESC, id DESC);

-- Every moderation action, by staff or automatic (moderator NULL: auto-hide). It outlives what it names: the case
-- link and the accounts become NULL when those go, the target's type and id stay.
CREATE TABLE moderation_log (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  moderator_id uuid REFERENCES users(id) ON DELETE SET NULL,
  action text NOT NULL CHECK (action IN ('auto_hide', 'dismiss', 'hide', 'suspend')),
  case_id uuid REFERENCES moderation_cases(id) ON DELETE SET NULL,
  target_type text NOT NULL,
  target_id uuid NOT NULL,
  -- The account the action bore on (the content's owner; the suspended user).
  subject_id uuid REFERENCES users(id) ON DELETE SET NULL,
  note text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX moderation_log_created_idx ON moderation_log (created_at DESC, id DESC);
