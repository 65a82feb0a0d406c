-- Access tokens issued before this moment are refused (password reset, deactivation): compared with the
-- token's issue time in milliseconds (claim iat_ms), since iat has a resolution of one second.
ALTER TABLE users ADD COLUMN tokens_valid_after timestamptz;

-- The token that replaced this one when it was rotated: a copy presented again within the grace window
-- (two tabs refreshing at once) gets that same successor instead of revoking the whole family.
ALTER TABLE refresh_tokens ADD COLUMN replaced_by uuid;

-- Clients (account, keyed hash of the address) that logged in successfully: they get their own login
-- budget, so a stranger spending the account's budget cannot lock the owner out of a known device.
CREATE TABLE login_clients (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  client_key text NOT NULL,
  last_login_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, client_key)
);
