import type { OutboxHandler } from './platform/outbox.js';
import { webhookDeliveryHandler } from './modules/webhooks/webhooks.outbox.js';
import { alertFanoutHandler } from './modules/posts/alerts.service.js';
import { pushSendHandler } from './modules/push/push.outbox.js';
import { digestMailHandler } from './modules/notifications/digest.outbox.js';

/**
 * Every kind of outbox work (DESIGN.md section 4), as src/registry.ts lists every operation: each node's worker
 * (platform/outbox.ts) runs these. A module defines its handler in its own `*.outbox.ts`; no module writes a queue
 * of its own.
 */
export const outboxHandlers: readonly OutboxHandler[] = [webhookDeliveryHandler, pushSendHandler, alertFanoutHandler, digestMailHandler];
