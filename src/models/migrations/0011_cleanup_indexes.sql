-- The cleanup jobs (src/modules/accounts/cleanup.job.ts) find what they delete by expiry, without a scan.
CREATE INDEX IF NOT EXISTS refresh_tokens_revoked_expiry_idx ON refresh_tokens (expires_at) WHERE revoked_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS password_resets_expiry_idx ON password_resets (expires_at);
