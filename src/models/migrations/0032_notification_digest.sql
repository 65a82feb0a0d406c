-- The notification digest (DESIGN.md section 10, issue 35, second part): when each person's digest was last
-- considered (the cadence: one per day or week) and last mailed (its list starts there). On the preferences row,
-- which exists for everyone whose email_digest is not 'off' and goes with the account.
ALTER TABLE notification_preferences ADD COLUMN IF NOT EXISTS digest_checked_at timestamptz;
ALTER TABLE notification_preferences ADD COLUMN IF NOT EXISTS digest_sent_at timestamptz;
