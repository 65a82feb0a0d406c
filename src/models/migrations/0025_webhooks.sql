-- Webhooks (DESIGN.md section 12, issue 37). A store's owner subscribes to the store's events (store_id set); staff
-- subscribe to the service's (store_id NULL). Deleting the store or the owner's account deletes them (and their
-- deliveries). Secrets are sealed (AES-256-GCM, key from WEBHOOK_SECRET_KEY or derived from the JWT secret: see
-- modules/webhooks/secrets.ts): a dump of this table does not hand them out. During a rotation the previous secret
-- keeps signing until previous_secret_until.
CREATE TABLE webhooks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  owner_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  store_id uuid REFERENCES stores(id) ON DELETE CASCADE,
  url text NOT NULL,
  events text[] NOT NULL,
  description text NOT NULL DEFAULT '',
  is_active boolean NOT NULL DEFAULT true,
  secret_sealed text NOT NULL,
  previous_secret_sealed text,
  previous_secret_until timestamptz,
  -- The first failed attempt since the last success: three days of failing disables the webhook.
  failing_since timestamptz,
  disabled_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_owner_idx ON webhooks (owner_id, created_at);
CREATE INDEX webhooks_store_idx ON webhooks (store_id) WHERE store_id IS NOT NULL;

-- One event for one webhook. `event_id` is the `webhook-id` header, the same on every attempt and redelivery;
-- `body` is the exact JSON signed and sent. The work itself is an outbox row (kind `webhook.delivery`).
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id text NOT NULL,
  type text NOT NULL,
  body text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  last_status_code integer,
  -- At most 1 KB of the receiver's answer, or what went wrong (refused address, timeout).
  last_response text,
  last_attempt_at timestamptz,
  next_attempt_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
