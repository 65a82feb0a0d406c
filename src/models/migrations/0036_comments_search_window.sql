-- Search's window for comments (issue 36; docs/modules/search.md): the newest matches the caller may find are ranked,
-- as for posts. For a common word PostgreSQL walks comments newest first and stops at the window's last match, which
-- needs comments in time order (posts have posts_created_idx, 0010); for a rare word it still reads the GIN index.
CREATE INDEX IF NOT EXISTS comments_created_idx ON comments (created_at DESC, id DESC);

-- Whether the comment `parent`, or any comment above it, is hidden by moderation (a reply under a hidden comment goes
-- with it: src/modules/policy/comment-visibility.ts, commentVisibleInManyTo, asks here for each reply it tests).
-- A function, not the same WITH RECURSIVE written inline, for the planner's sake: inline, the recursion is costed
-- at about 140 per candidate comment (ten levels assumed), every candidate alike, although only replies walk it and
-- most threads are one or two levels deep. That cost, times every match a rare word might have, made PostgreSQL read
-- the whole table in parallel rather than the GIN index (a rare word 0.5 -> 90 ms at 200,000 comments), and pushed a
-- common word's walk over jit_above_cost (50 ms of JIT compilation for a 20 ms statement). A SQL function with a
-- WITH is not inlined, so it is costed as one call (COST 100 of cpu_operator_cost), and its plan is kept for the
-- statement that calls it.
CREATE OR REPLACE FUNCTION hl_comment_under_hidden(parent uuid) RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH RECURSIVE up(id) AS (
    SELECT parent
    UNION ALL
    SELECT x.parent_id FROM comments x JOIN up ON x.id = up.id WHERE x.parent_id IS NOT NULL)
  SELECT EXISTS (SELECT 1 FROM up JOIN comments a ON a.id = up.id WHERE a.hidden_at IS NOT NULL)
$$;
