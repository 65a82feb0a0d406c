import { z } from 'zod';

/** The events a webhook may subscribe to (DESIGN.md section 12): a store's, or the service's for staff. */
export const STORE_EVENTS = ['order.created', 'order.updated', 'order.cancelled', 'review.created', 'product.out_of_stock'] as const;
export const SERVICE_EVENTS = ['report.created', 'moderation.action'] as const;
export type StoreEventType = (typeof STORE_EVENTS)[number];
export type ServiceEventType = (typeof SERVICE_EVENTS)[number];
/** Sent by `POST /api/webhooks/{id}/test/` only; nobody subscribes to it. */
export const TEST_EVENT = 'webhook.test';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const zWebhookBody = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    store_id: z.string().nullable().describe("The store whose events are sent; null: the service's events (staff)"),
    description: z.string(),
    is_active: z.boolean().describe('false once disabled: by its owner, by a 410 answer, or after 3 days of failing'),
    created_at: z.string(),
  })
  .meta({ id: 'Webhook' });
export type WebhookBody = z.infer<typeof zWebhookBody>;

export const zWebhookWithSecret = zWebhookBody
  .extend({ secret: z.string().describe('whsec_ + base64 of 24 bytes; shown in this answer only') })
  .meta({ id: 'WebhookWithSecret' });

export const zWebhookDeliveryBody = z
  .object({
    id: z.string(),
    event_id: z.string().describe('The webhook-id header: the same on every attempt and redelivery'),
    type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_response: z.string().nullable().describe("At most 1 KB of the receiver's last answer, or why the last attempt failed"),
    last_attempt_at: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDeliveryBody = z.infer<typeof zWebhookDeliveryBody>;

export interface WebhookRow extends Record<string, unknown> {
  id: string;
  owner_id: string;
  store_id: string | null;
  url: string;
  events: string[];
  description: string;
  is_active: boolean;
  created_at: string | Date;
}

export interface DeliveryRow extends Record<string, unknown> {
  id: string;
  event_id: string;
  type: string;
  status: (typeof DELIVERY_STATUSES)[number];
  attempts: number;
  last_status_code: number | null;
  last_response: string | null;
  last_attempt_at: string | Date | null;
  next_attempt_at: string | Date | null;
}

const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());

export function serializeWebhook(w: WebhookRow): WebhookBody {
  return { id: w.id, url: w.url, events: w.events, store_id: w.store_id, description: w.description, is_active: w.is_active, created_at: iso(w.created_at)! };
}

export function serializeDelivery(d: DeliveryRow): WebhookDeliveryBody {
  return {
    id: d.id,
    event_id: d.event_id,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.last_status_code,
    last_response: d.last_response,
    last_attempt_at: iso(d.last_attempt_at),
    next_attempt_at: iso(d.next_attempt_at),
  };
}
