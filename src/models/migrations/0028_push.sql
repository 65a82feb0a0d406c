-- Push (DESIGN.md section 10, issue 35). A person's devices, one row per Web Push subscription, FCM registration
-- token or APNs device token. The endpoint or token is unique across the service: the same one subscribed again moves
-- to the caller (a phone that changed hands). The Web Push keys are the browser's (public key and auth secret): never
-- answered to a client, never exported.
CREATE TABLE push_devices (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('webpush', 'fcm', 'apns')),
  -- webpush: the endpoint URL; fcm and apns: the token. Unique per kind.
  address text NOT NULL,
  p256dh text,
  auth text,
  environment text CHECK (environment IN ('production', 'sandbox')),
  locale text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_success_at timestamptz,
  UNIQUE (kind, address)
);
CREATE INDEX push_devices_user_idx ON push_devices (user_id, created_at, id);

-- A person's notification preferences; no row: the defaults (every type pushed, no digest, previews on, no quiet
-- hours). `push` holds only the types switched off or on explicitly ({type: bool}). `email_digest` is read by the
-- digest (issue 35, second part: migration 0032 adds what it needs of its own).
CREATE TABLE notification_preferences (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  push jsonb NOT NULL DEFAULT '{}'::jsonb,
  email_digest text NOT NULL DEFAULT 'off' CHECK (email_digest IN ('off', 'daily', 'weekly')),
  previews boolean NOT NULL DEFAULT true,
  quiet_start text,
  quiet_end text,
  quiet_time_zone text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notification_preferences_digest_idx ON notification_preferences (email_digest) WHERE email_digest <> 'off';

-- The badge: a person's unread notifications, counted with every push.
CREATE INDEX IF NOT EXISTS notifications_user_unread_idx ON notifications (user_id) WHERE NOT is_read;
