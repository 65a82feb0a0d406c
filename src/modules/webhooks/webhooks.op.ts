import { z } from 'zod';
import { created, defineOperation, noContent, ok } from '../../core/operation.js';
import type { RateLimitRule } from '../../core/operation.js';
import { zPage, zPageSize, zUuid } from '../../core/validation.js';
import { zNoContent, zPaginated } from '../../core/response-schemas.js';
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  readWebhook,
  redeliver,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from './webhooks.service.js';
import { zWebhookBody, zWebhookDeliveryBody, zWebhookWithSecret } from './webhooks.serializer.js';

/** Webhooks (DESIGN.md section 12; docs/webhooks.md). Every operation is the caller's own webhooks: anyone else's is 404. */
const perUser = (points: number, durationSeconds: number): RateLimitRule[] => [{ name: 'user', points, durationSeconds, key: 'user' }];
const zUrl = () => z.string().max(2000, 'Ensure this field has no more than 2000 characters.');
const zEvents = () => z.array(z.string().max(100)).min(1, 'Subscribe to at least one event.').max(20);
const zDescription = () => z.preprocess((v) => (v === null ? '' : v), z.string().max(500, 'Ensure this field has no more than 500 characters.'));
const pageInput = { page: zPage(), page_size: zPageSize() };

export const createWebhookOp = defineOperation({
  name: 'webhooks.create',
  method: 'POST',
  path: '/api/webhooks/',
  auth: 'user',
  summary: "Subscribe a URL to a store's events (its owner) or, without store_id, to the service's (staff); the secret is answered this once",
  tags: ['webhooks'],
  input: z.object({ url: zUrl(), events: zEvents(), store_id: zUuid().nullable().optional(), description: zDescription().optional() }),
  rateLimits: perUser(30, 3600),
  responses: { 201: zWebhookWithSecret },
  errors: [403],
  handler: async (input, ctx) => created(await createWebhook(ctx, input)),
});

export const listWebhooksOp = defineOperation({
  name: 'webhooks.list',
  method: 'GET',
  path: '/api/webhooks/',
  auth: 'user',
  summary: "The caller's webhooks, newest first",
  tags: ['webhooks'],
  input: z.object(pageInput),
  responses: { 200: zPaginated(zWebhookBody) },
  handler: async (input, ctx) => ok(await listWebhooks(ctx, input)),
});

export const readWebhookOp = defineOperation({
  name: 'webhooks.read',
  method: 'GET',
  path: '/api/webhooks/{webhook_id}/',
  auth: 'user',
  summary: 'One of the caller\'s webhooks (never its secret)',
  tags: ['webhooks'],
  input: z.object({ webhook_id: zUuid() }),
  responses: { 200: zWebhookBody },
  handler: async (input, ctx) => ok(await readWebhook(ctx, input.webhook_id)),
});

export const updateWebhookOp = defineOperation({
  name: 'webhooks.update',
  method: 'PATCH',
  path: '/api/webhooks/{webhook_id}/',
  auth: 'user',
  summary: 'Change the URL, events, description, or switch it off and on (on again: its 3 days of failing start afresh)',
  tags: ['webhooks'],
  input: z.object({ webhook_id: zUuid(), url: zUrl().optional(), events: zEvents().optional(), description: zDescription().optional(), is_active: z.boolean().optional() }),
  rateLimits: perUser(60, 3600),
  responses: { 200: zWebhookBody },
  handler: async (input, ctx) => ok(await updateWebhook(ctx, input.webhook_id, input)),
});

export const deleteWebhookOp = defineOperation({
  name: 'webhooks.delete',
  method: 'DELETE',
  path: '/api/webhooks/{webhook_id}/',
  auth: 'user',
  summary: 'Delete a webhook and its deliveries',
  tags: ['webhooks'],
  input: z.object({ webhook_id: zUuid() }),
  responses: { 204: zNoContent },
  handler: async (input, ctx) => {
    await deleteWebhook(ctx, input.webhook_id);
    return noContent();
  },
});

export const rotateWebhookSecretOp = defineOperation({
  name: 'webhooks.rotate_secret',
  method: 'POST',
  path: '/api/webhooks/{webhook_id}/rotate-secret/',
  auth: 'user',
  summary: 'A new secret, answered this once; the old one keeps signing alongside it for 24 h',
  tags: ['webhooks'],
  input: z.object({ webhook_id: zUuid() }),
  rateLimits: perUser(20, 3600),
  responses: { 200: zWebhookWithSecret },
  handler: async (input, ctx) => ok(await rotateWebhookSecret(ctx, input.webhook_id)),
});

export const testWebhookOp = defineOperation({
  name: 'webhooks.test',
  method: 'POST',
  path: '/api/webhooks/{webhook_id}/test/',
  auth: 'user',
  summary: 'Send a webhook.test event (even to a disabled webhook); answers its delivery, pending',
  tags: ['webhooks'],
  input: z.object({ webhook_id: zUuid() }),
  rateLimits: perUser(30, 3600),
  responses: { 202: zWebhookDeliveryBody },
  handler: async (input, ctx) => ok(await sendTestEvent(ctx, input.webhook_id), 202),
});

export const listDeliveriesOp = defineOperation({
  name: 'webhooks.deliveries',
  method: 'GET',
  path: '/api/webhooks/{webhook_id}/deliveries/',
  auth: 'user',
  summary: "A webhook's deliveries, newest first",
  tags: ['webhooks'],
  input: z.object({ webhook_id: zUuid(), ...pageInput }),
  responses: { 200: zPaginated(zWebhookDeliveryBody) },
  handler: async (input, ctx) => ok(await listDeliveries(ctx, input.webhook_id, input)),
});

export const redeliverOp = defineOperation({
  name: 'webhooks.redeliver',
  method: 'POST',
  path: '/api/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver/',
  auth: 'user',
  summary: 'Send a delivery again, with the same webhook-id; its retries start over',
  tags: ['webhooks'],
  input: z.object({ webhook_id: zUuid(), delivery_id: zUuid() }),
  rateLimits: perUser(60, 3600),
  responses: { 202: zWebhookDeliveryBody },
  handler: async (input, ctx) => ok(await redeliver(ctx, input.webhook_id, input.delivery_id), 202),
});

export const webhookOperations = [
  createWebhookOp,
  listWebhooksOp,
  readWebhookOp,
  updateWebhookOp,
  deleteWebhookOp,
  rotateWebhookSecretOp,
  testWebhookOp,
  listDeliveriesOp,
  redeliverOp,
];
