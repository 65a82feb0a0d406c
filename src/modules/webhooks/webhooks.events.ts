import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db.js';
import { enqueue, outboxClock } from '../../platform/outbox.js';
import type { ServiceEventType, StoreEventType } from './webhooks.serializer.js';

/**
 * Events into webhooks, in the transaction of the write they report (DESIGN.md section 12): one delivery row and one
 * outbox row per subscribed webhook, so a rollback sends nothing and a commit cannot lose one. With no webhook
 * subscribed this costs one indexed read and `data` is never built. Sending happens after the commit
 * (webhooks.outbox.ts); nothing here waits on a receiver.
 */
declare module '../../platform/outbox.js' {
  interface OutboxPayloads {
    'webhook.delivery': { delivery_id: string };
  }
}

/** The event's id, the `webhook-id` header of each of its deliveries, the same on every attempt. */
export const newEventId = () => 'msg_' + crypto.randomBytes(16).toString('base64url');

/** The body every receiver gets: `{type, timestamp, data}`. */
export function eventBody(type: string, data: unknown): string {
  return JSON.stringify({ type, timestamp: outboxClock.now().toISOString(), data });
}

/** `data` is what the store's owner would read of the resource over REST (built only when someone listens). */
export async function emitStoreEvent(tx: DbOrTx, storeId: string | null, type: StoreEventType, data: () => unknown): Promise<void> {
  if (!storeId) return;
  const { rows } = await tx.execute<{ id: string }>(sql`
    SELECT id FROM webhooks WHERE store_id = ${storeId}::uuid AND is_active AND ${type} = ANY(events)`);
  if (rows.length) await queueDeliveries(tx, rows.map((r) => r.id), type, await data());
}

/** Staff webhooks (no store); `data` is what staff read of the resource over REST. */
export async function emitServiceEvent(tx: DbOrTx, type: ServiceEventType, data: () => unknown): Promise<void> {
  const { rows } = await tx.execute<{ id: string }>(sql`
    SELECT w.id FROM webhooks w JOIN users u ON u.id = w.owner_id
    WHERE w.store_id IS NULL AND w.is_active AND ${type} = ANY(w.events) AND (u.is_staff OR u.is_admin) AND u.is_active`);
  if (rows.length) await queueDeliveries(tx, rows.map((r) => r.id), type, await data());
}

export async function queueDeliveries(tx: DbOrTx, webhookIds: readonly string[], type: string, data: unknown, eventId = newEventId()): Promise<string[]> {
  const body = eventBody(type, data);
  const now = outboxClock.now().toISOString();
  const ids: string[] = [];
  for (const webhookId of webhookIds) {
    const { rows } = await tx.execute<{ id: string }>(sql`
      INSERT INTO webhook_deliveries (webhook_id, event_id, type, body, next_attempt_at, created_at)
      VALUES (${webhookId}::uuid, ${eventId}, ${type}, ${body}, ${now}::timestamptz, ${now}::timestamptz) RETURNING id`);
    await enqueue(tx, 'webhook.delivery', { delivery_id: rows[0].id }, { key: webhookId });
    ids.push(rows[0].id);
  }
  return ids;
}
