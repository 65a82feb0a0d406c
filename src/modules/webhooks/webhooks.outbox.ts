import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import { transaction } from '../../platform/db.js';
import { GiveUp, defineOutboxHandler, outboxClock, type OutboxJob } from '../../platform/outbox.js';
import { notify } from '../notifications/notifications.service.js';
import { openSecret } from './secrets.js';
import { sendWebhook, WEBHOOK_TIMEOUT_MS, type SendOptions, type SendResult } from './sender.js';
import { webhookHeaders } from './signing.js';
import { TEST_EVENT } from './webhooks.serializer.js';

/**
 * Sending one delivery (DESIGN.md section 12), run by the outbox after the event's commit, on any node. Success is a
 * 2xx; anything else is retried by the outbox after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (eight
 * attempts), then the delivery is failed. A 410 disables the webhook at once; a webhook whose attempts have failed
 * for 3 days (since its last success) is disabled. Both tell its owner (a `general` notification). Deliveries of a
 * disabled webhook are not sent (failed), but for its test events.
 */
export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 10 * 3600_000, 10 * 3600_000] as const;
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 3600_000;
export const FAILING_DAYS_REASON = 'its deliveries have failed for 3 days';
/** Deliveries in flight to one endpoint (all nodes), and on one node. */
export const MAX_IN_FLIGHT_PER_WEBHOOK = 4;
export const MAX_IN_FLIGHT_PER_NODE = 16;
/** How long a queued delivery waits for others before they are claimed together (OutboxHandler.gatherMs). */
export const WEBHOOK_GATHER_MS = 50;

/** Tests replace the resolver and the connection (sender.ts); the service uses the system's. */
export const senderHooks: Pick<SendOptions, 'resolve' | 'request'> & { timeoutMs?: number } = {};

interface Loaded extends Record<string, unknown> {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  body: string;
  url: string;
  owner_id: string;
  is_active: boolean;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_until: string | Date | null;
  failing_since: string | Date | null;
}

/** A delivery that succeeded, recorded by `finish` with the deletion of its outbox row. */
interface Succeeded {
  id: string;
  code: number;
  response: string;
  at: string;
}

export const webhookDeliveryHandler = defineOutboxHandler<'webhook.delivery', Succeeded>({
  kind: 'webhook.delivery',
  maxInFlight: MAX_IN_FLIGHT_PER_NODE,
  maxInFlightPerKey: MAX_IN_FLIGHT_PER_WEBHOOK,
  // An event may reach its receiver this much later (the contract's bound is seconds): a store's burst of orders is
  // then one claim, and the finished deliveries are recorded by it, instead of two statements per delivery.
  gatherMs: WEBHOOK_GATHER_MS,
  // The attempt's 15 s, and the bookkeeping around it, with room to spare.
  leaseMs: WEBHOOK_TIMEOUT_MS + 45_000,
  retryDelaysMs: RETRY_DELAYS_MS,
  // The delivery and its webhook, read by the claim (one round trip less per delivery).
  load: (payload) => sql`
    SELECT d.id, d.webhook_id, d.event_id, d.type, d.body, w.url, w.owner_id, w.is_active, w.secret_sealed,
      w.previous_secret_sealed, w.previous_secret_until, w.failing_since
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = (${payload}->>'delivery_id')::uuid`,
  async run(_payload, job) {
    const delivery = job.loaded as Loaded | null;
    if (!delivery) return; // the webhook (or its store, or account) was deleted meanwhile
    if (!delivery.is_active && delivery.type !== TEST_EVENT) {
      await record(delivery.id, { status: 'failed', response: 'Not sent: the webhook is disabled.', next: null });
      return;
    }
    const now = outboxClock.now();
    const secrets = [openSecret(delivery.secret_sealed)];
    if (delivery.previous_secret_sealed && delivery.previous_secret_until && new Date(delivery.previous_secret_until) > now) {
      secrets.push(openSecret(delivery.previous_secret_sealed));
    }
    const result = await sendWebhook(delivery.url, delivery.body, webhookHeaders(secrets, delivery.event_id, delivery.body), {
      allowPrivate: platform.config.WEBHOOK_ALLOW_PRIVATE_ENDPOINTS,
      ...senderHooks,
    });
    if (result.outcome === 'answered' && result.statusCode >= 200 && result.statusCode < 300) {
      if (delivery.failing_since) await platform.db.execute(sql`UPDATE webhooks SET failing_since = NULL WHERE id = ${delivery.webhook_id}::uuid`);
      // Recorded by `finish`, in the statement that deletes the outbox row (one round trip less per delivery).
      return { id: delivery.id, code: result.statusCode, response: result.body.slice(0, 1024), at: outboxClock.now().toISOString() };
    }
    return failed(delivery, job, result, now);
  },
  finish: (succeeded) => sql`
    UPDATE webhook_deliveries d SET status = 'succeeded', attempts = d.attempts + 1, last_status_code = s.code,
      last_response = s.response, last_attempt_at = s.at, next_attempt_at = NULL
    FROM unnest(${sql.param(succeeded.map((x) => x.id))}::uuid[], ${sql.param(succeeded.map((x) => x.code))}::int[],
      ${sql.param(succeeded.map((x) => x.response))}::text[], ${sql.param(succeeded.map((x) => x.at))}::timestamptz[]) AS s(id, code, response, at)
    WHERE d.id = s.id`,
});

async function failed(delivery: Loaded, job: OutboxJob, result: Exclude<SendResult, never>, now: Date): Promise<never> {
  const code = result.outcome === 'answered' ? result.statusCode : null;
  const response = result.outcome === 'answered' ? result.body : result.reason;
  const failingSince = delivery.failing_since ? new Date(delivery.failing_since) : now;
  let disable: string | null = null;
  if (code === 410) disable = 'the endpoint answered 410 Gone';
  else if (now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS) disable = FAILING_DAYS_REASON;
  const next = disable ? null : job.retryAt;
  await record(delivery.id, { status: next ? 'pending' : 'failed', code, response, next });
  if (disable && delivery.type !== TEST_EVENT) {
    await disableWebhook(delivery, disable);
    throw new GiveUp(`webhook disabled: ${disable}`);
  }
  if (!delivery.failing_since && delivery.type !== TEST_EVENT) {
    await platform.db.execute(sql`UPDATE webhooks SET failing_since = ${now.toISOString()}::timestamptz WHERE id = ${delivery.webhook_id}::uuid AND failing_since IS NULL`);
  }
  if (code === 410) throw new GiveUp('410 Gone');
  throw new Error(code === null ? response : `answered ${code}`);
}

async function record(id: string, r: { status: 'pending' | 'succeeded' | 'failed'; code?: number | null; response: string; next: Date | null }): Promise<void> {
  await platform.db.execute(sql`
    UPDATE webhook_deliveries SET status = ${r.status}, attempts = attempts + 1, last_status_code = ${r.code ?? null},
      last_response = ${r.response.slice(0, 1024)}, last_attempt_at = ${outboxClock.now().toISOString()}::timestamptz,
      next_attempt_at = ${r.next ? r.next.toISOString() : null}::timestamptz
    WHERE id = ${id}::uuid`);
}

/**
 * Off, once, with its owner told; its pending deliveries are failed as they come up. Also run by the housekeeping
 * job (webhooks.job.ts) for a webhook whose 3 failing days ran out with no attempt left to notice it.
 */
export async function disableWebhook(delivery: Pick<Loaded, 'webhook_id' | 'owner_id' | 'url'>, reason: string): Promise<void> {
  await transaction(platform.db, async (tx, events) => {
    const { rows } = await tx.execute<{ id: string }>(sql`
      UPDATE webhooks SET is_active = false, disabled_reason = ${reason}, updated_at = now()
      WHERE id = ${delivery.webhook_id}::uuid AND is_active RETURNING id`);
    if (!rows[0]) return;
    await notify(tx, events, {
      recipientId: delivery.owner_id,
      actorId: null,
      type: 'general',
      targetId: delivery.webhook_id,
      targetType: 'Webhook',
      message: `Your webhook to ${delivery.url} was disabled: ${reason}. Fix the endpoint, then switch it back on.`,
    });
  });
}
