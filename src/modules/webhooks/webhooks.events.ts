import crypto from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db.js';
import { outboxClock, outboxInsert, outboxQueuedAfterCommit } from '../../platform/outbox.js';
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

/**
 * What a webhook receives as `data`: the resource itself when the write already holds it (an order, a review: the
 * whole event is then one statement, listeners or not), or a function that reads it, called only when someone listens
 * (a product, a case: a read that a write with no listener should not pay).
 */
export type EventData = object | (() => Promise<unknown>);

/** `data` is what the store's owner would read of the resource over REST. */
export async function emitStoreEvent(tx: DbOrTx, storeId: string | null, type: StoreEventType, data: EventData): Promise<void> {
  if (!storeId) return;
  await emit(tx, sql`SELECT id, 1 AS ord FROM webhooks WHERE store_id = ${storeId}::uuid AND is_active AND ${type} = ANY(events)`, type, data);
}

/** Staff webhooks (no store); `data` is what staff read of the resource over REST. */
export async function emitServiceEvent(tx: DbOrTx, type: ServiceEventType, data: EventData): Promise<void> {
  await emit(
    tx,
    sql`SELECT w.id, 1 AS ord FROM webhooks w JOIN users u ON u.id = w.owner_id
      WHERE w.store_id IS NULL AND w.is_active AND ${type} = ANY(w.events) AND (u.is_staff OR u.is_admin) AND u.is_active`,
    type,
    data,
  );
}

async function emit(tx: DbOrTx, listeners: SQL, type: string, data: EventData): Promise<void> {
  if (typeof data !== 'function') {
    await insertDeliveries(tx, listeners, type, data);
    return;
  }
  const { rows } = await tx.execute<{ id: string }>(listeners);
  if (rows.length) await queueDeliveries(tx, rows.map((r) => r.id), type, await data());
}

/** One delivery (and its outbox row) per webhook of `webhookIds`; answers the deliveries' ids in that order. */
export async function queueDeliveries(tx: DbOrTx, webhookIds: readonly string[], type: string, data: unknown, eventId = newEventId()): Promise<string[]> {
  const listeners = sql`SELECT id, ord FROM unnest(${sql.param([...webhookIds])}::uuid[]) WITH ORDINALITY AS w(id, ord)`;
  return insertDeliveries(tx, listeners, type, data, eventId);
}

/**
 * One statement, whatever the number of listeners (none included): a delivery row for each webhook `listeners`
 * selects (a query answering `id`, and `ord` to keep an order), and each delivery's outbox row, keyed by its webhook
 * (the outbox bounds the deliveries in flight per endpoint).
 */
async function insertDeliveries(tx: DbOrTx, listeners: SQL, type: string, data: unknown, eventId = newEventId()): Promise<string[]> {
  const now = outboxClock.now().toISOString();
  const { rows } = await tx.execute<{ id: string }>(sql`
    WITH listener AS (${listeners}),
    delivery AS (
      INSERT INTO webhook_deliveries (webhook_id, event_id, type, body, next_attempt_at, created_at)
      SELECT listener.id, ${eventId}, ${type}, ${eventBody(type, data)}, ${now}::timestamptz, ${now}::timestamptz FROM listener
      RETURNING id, webhook_id
    ),
    queued AS (
      ${outboxInsert('webhook.delivery', { from: sql`delivery`, payload: sql`jsonb_build_object('delivery_id', delivery.id)`, key: sql`delivery.webhook_id::text` })}
    )
    SELECT delivery.id FROM delivery JOIN listener ON listener.id = delivery.webhook_id ORDER BY listener.ord`);
  if (rows.length) outboxQueuedAfterCommit('webhook.delivery');
  return rows.map((r) => r.id);
}
