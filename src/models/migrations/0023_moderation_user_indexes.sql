-- Indexes for what clears the moderation tables' references.
-- An account deletion (docs/modules/leaving.md) clears the columns of the moderation tables that name the account
-- (ON DELETE SET NULL, migration 0021): each such column gets an index starting with it, so that clearing them is an
-- index lookup rather than a scan of the whole table (the account-deletion coverage test checks every foreign key).
CREATE INDEX moderation_cases_owner_idx ON moderation_cases (owner_id);
CREATE INDEX moderation_cases_resolved_by_idx ON moderation_cases (resolved_by);
CREATE INDEX moderation_log_moderator_idx ON moderation_log (moderator_id);
CREATE INDEX moderation_log_subject_idx ON moderation_log (subject_id);
-- The same for a case that goes (its log entries keep their target, their case link becomes NULL).
CREATE INDEX moderation_log_case_idx ON moderation_log (case_id);
