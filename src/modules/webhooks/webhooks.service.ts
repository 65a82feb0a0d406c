import net from 'node:net';
import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { fieldError, forbidden, nonFieldError, notFound } from '../../core/errors.js';
import { requireOwner } from '../../core/ownership.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { platform } from '../../platform/index.js';
import { currentDb, transaction } from '../../platform/db.js';
import { enqueue, outboxClock } from '../../platform/outbox.js';
import { isPublicAddress } from '../../platform/public-address.js';
import { newWebhookSecret, sealSecret } from './secrets.js';
import { queueDeliveries } from './webhooks.events.js';
import {
  SERVICE_EVENTS,
  STORE_EVENTS,
  TEST_EVENT,
  serializeDelivery,
  serializeWebhook,
  type DeliveryRow,
  type WebhookBody,
  type WebhookDeliveryBody,
  type WebhookRow,
} from './webhooks.serializer.js';

/** At most this many webhooks per store (DESIGN.md section 12), and per staff member for the service's events. */
export const MAX_WEBHOOKS_PER_STORE = 10;
/** The old secret keeps signing alongside the new one this long after a rotation. */
export const PREVIOUS_SECRET_HOURS = 24;

const COLUMNS = sql.raw('id, owner_id, store_id, url, events, description, is_active, created_at');
const DELIVERY_COLUMNS = sql.raw('id, event_id, type, status, attempts, last_status_code, last_response, last_attempt_at, next_attempt_at');

/**
 * The URL as it may be stored: https (http only under WEBHOOK_ALLOW_PRIVATE_ENDPOINTS), no credentials, and not an
 * address literal outside the public internet. A name is resolved and checked at each send, not here: what it
 * resolves to now says nothing of later.
 */
function checkUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fieldError('url', 'Enter a valid URL.');
  }
  const allowPrivate = platform.config.WEBHOOK_ALLOW_PRIVATE_ENDPOINTS;
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) throw fieldError('url', 'Only https URLs are allowed.');
  if (url.username || url.password) throw fieldError('url', 'URLs with credentials are not allowed.');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (net.isIP(host) && !isPublicAddress(host)))) {
    throw fieldError('url', 'The URL must point to a public address.');
  }
  return url.toString();
}

function checkEvents(events: readonly string[], storeId: string | null): string[] {
  const allowed: readonly string[] = storeId ? STORE_EVENTS : SERVICE_EVENTS;
  const unknown = events.filter((e) => !allowed.includes(e));
  if (unknown.length) throw fieldError('events', `Not events of ${storeId ? 'a store' : 'the service'}: ${unknown.join(', ')}. Allowed: ${allowed.join(', ')}.`);
  return [...new Set(events)];
}

/**
 * The caller's webhook, or 404: anyone else's webhook does not exist for them (DESIGN.md section 12). The lock is for
 * writes (rotate, update, delete).
 */
async function ownWebhook(ctx: AuthedContext, id: string, lock = false): Promise<WebhookRow> {
  const { rows } = await currentDb().execute<WebhookRow>(sql`SELECT ${COLUMNS} FROM webhooks WHERE id = ${id}::uuid ${lock ? sql`FOR UPDATE` : sql``}`);
  const row = rows[0];
  if (!row) throw notFound();
  requireOwner(ctx.user, row.owner_id, { hide: true });
  return row;
}

export async function createWebhook(
  ctx: AuthedContext,
  input: { url: string; events: string[]; store_id?: string | null; description?: string },
): Promise<WebhookBody & { secret: string }> {
  const storeId = input.store_id ?? null;
  const url = checkUrl(input.url);
  const events = checkEvents(input.events, storeId);
  const secret = newWebhookSecret();
  return transaction(platform.db, async (tx) => {
    if (storeId) {
      // The store row is locked: two creations at once count each other against the limit.
      const { rows } = await tx.execute<{ owner_id: string }>(sql`SELECT owner_id FROM stores WHERE id = ${storeId}::uuid FOR UPDATE`);
      if (!rows[0]) throw fieldError('store_id', `Invalid pk "${storeId}" - object does not exist.`);
      requireOwner(ctx.user, rows[0].owner_id);
    } else {
      if (!ctx.user.isStaff && !ctx.user.isAdmin) throw forbidden('Only staff may subscribe to the service\'s events; give a store_id for a store\'s.');
      await tx.execute(sql`SELECT id FROM users WHERE id = ${ctx.user.id}::uuid FOR UPDATE`);
    }
    const { rows: counted } = await tx.execute<{ n: number }>(sql`
      SELECT count(*)::int AS n FROM webhooks WHERE ${storeId ? sql`store_id = ${storeId}::uuid` : sql`store_id IS NULL AND owner_id = ${ctx.user.id}::uuid`}`);
    if (counted[0].n >= MAX_WEBHOOKS_PER_STORE) throw nonFieldError(`At most ${MAX_WEBHOOKS_PER_STORE} webhooks per ${storeId ? 'store' : 'staff member'}.`);
    const { rows } = await tx.execute<WebhookRow>(sql`
      INSERT INTO webhooks (owner_id, store_id, url, events, description, secret_sealed)
      VALUES (${ctx.user.id}::uuid, ${storeId}::uuid, ${url}, ${sql.param(events)}::text[], ${input.description ?? ''}, ${sealSecret(secret)})
      RETURNING ${COLUMNS}`);
    return { ...serializeWebhook(rows[0]), secret };
  });
}

export async function listWebhooks(ctx: AuthedContext, input: { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: 20, max: 100 });
  const db = currentDb();
  const { rows: counted } = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM webhooks WHERE owner_id = ${ctx.user.id}::uuid`);
  const { rows } = await db.execute<WebhookRow>(sql`
    SELECT ${COLUMNS} FROM webhooks WHERE owner_id = ${ctx.user.id}::uuid ORDER BY created_at DESC, id DESC LIMIT ${params.limit} OFFSET ${params.offset}`);
  return paginated(ctx, '/api/webhooks/', params, counted[0].n, rows.map(serializeWebhook));
}

export async function readWebhook(ctx: AuthedContext, id: string): Promise<WebhookBody> {
  return serializeWebhook(await ownWebhook(ctx, id));
}

/** Switching a disabled webhook back on starts its 3 days of failing afresh. */
export async function updateWebhook(ctx: AuthedContext, id: string, input: { url?: string; events?: string[]; description?: string; is_active?: boolean }): Promise<WebhookBody> {
  return transaction(platform.db, async (tx) => {
    const row = await ownWebhook(ctx, id, true);
    const url = input.url === undefined ? row.url : checkUrl(input.url);
    const events = input.events === undefined ? row.events : checkEvents(input.events, row.store_id);
    const { rows } = await tx.execute<WebhookRow>(sql`
      UPDATE webhooks SET url = ${url}, events = ${sql.param(events)}::text[], description = ${input.description ?? row.description},
        is_active = ${input.is_active ?? row.is_active},
        failing_since = CASE WHEN ${input.is_active === true} AND NOT is_active THEN NULL ELSE failing_since END,
        disabled_reason = CASE WHEN ${input.is_active ?? row.is_active} THEN NULL ELSE coalesce(disabled_reason, 'disabled by its owner') END,
        updated_at = now()
      WHERE id = ${id}::uuid RETURNING ${COLUMNS}`);
    return serializeWebhook(rows[0]);
  });
}

/** Its deliveries go with it; their outbox rows find nothing to send. */
export async function deleteWebhook(ctx: AuthedContext, id: string): Promise<void> {
  await transaction(platform.db, async (tx) => {
    await ownWebhook(ctx, id, true);
    await tx.execute(sql`DELETE FROM webhooks WHERE id = ${id}::uuid`);
  });
}

/** A new secret, answered once; the one it replaces keeps signing alongside it for PREVIOUS_SECRET_HOURS. */
export async function rotateWebhookSecret(ctx: AuthedContext, id: string): Promise<WebhookBody & { secret: string }> {
  const secret = newWebhookSecret();
  const until = new Date(outboxClock.now().getTime() + PREVIOUS_SECRET_HOURS * 3600_000).toISOString();
  return transaction(platform.db, async (tx) => {
    await ownWebhook(ctx, id, true);
    const { rows } = await tx.execute<WebhookRow>(sql`
      UPDATE webhooks SET previous_secret_sealed = secret_sealed, previous_secret_until = ${until}::timestamptz,
        secret_sealed = ${sealSecret(secret)}, updated_at = now()
      WHERE id = ${id}::uuid RETURNING ${COLUMNS}`);
    return { ...serializeWebhook(rows[0]), secret };
  });
}

/** `webhook.test` to this webhook alone, through the outbox like any event (sent even while it is disabled). */
export async function sendTestEvent(ctx: AuthedContext, id: string): Promise<WebhookDeliveryBody> {
  return transaction(platform.db, async (tx) => {
    const webhook = await ownWebhook(ctx, id);
    const [deliveryId] = await queueDeliveries(tx, [webhook.id], TEST_EVENT, { webhook_id: webhook.id, message: 'A test event: your endpoint is reached and the signature verifies.' });
    return readDelivery(deliveryId);
  });
}

export async function listDeliveries(ctx: AuthedContext, id: string, input: { page?: number; page_size?: number }) {
  await ownWebhook(ctx, id);
  const params = pageParams(input, { size: 20, max: 100 });
  const db = currentDb();
  const { rows: counted } = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ${id}::uuid`);
  const { rows } = await db.execute<DeliveryRow>(sql`
    SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ${id}::uuid
    ORDER BY created_at DESC, id DESC LIMIT ${params.limit} OFFSET ${params.offset}`);
  return paginated(ctx, `/api/webhooks/${id}/deliveries/`, params, counted[0].n, rows.map(serializeDelivery));
}

/**
 * The same event again, with the same `webhook-id` (a receiver that already has it may drop it): the delivery is
 * pending again and its retries start over. A run of it in flight finishes and counts as an attempt.
 */
export async function redeliver(ctx: AuthedContext, id: string, deliveryId: string): Promise<WebhookDeliveryBody> {
  return transaction(platform.db, async (tx) => {
    const webhook = await ownWebhook(ctx, id);
    const now = outboxClock.now().toISOString();
    const { rows } = await tx.execute<{ id: string }>(sql`
      UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${now}::timestamptz
      WHERE id = ${deliveryId}::uuid AND webhook_id = ${webhook.id}::uuid RETURNING id`);
    if (!rows[0]) throw notFound();
    await tx.execute(sql`DELETE FROM outbox WHERE kind = 'webhook.delivery' AND payload->>'delivery_id' = ${deliveryId}`);
    await enqueue(tx, 'webhook.delivery', { delivery_id: deliveryId }, { key: webhook.id });
    return readDelivery(deliveryId);
  });
}

async function readDelivery(id: string): Promise<WebhookDeliveryBody> {
  const { rows } = await currentDb().execute<DeliveryRow>(sql`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ${id}::uuid`);
  return serializeDelivery(rows[0]);
}
