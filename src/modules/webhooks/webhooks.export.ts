import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../../core/leaving.js';
import { olderThan, positionAt, withPositions } from '../../core/export-paging.js';
import { serializeWebhook, zWebhookBody, type WebhookRow } from './webhooks.serializer.js';

/** The account's webhooks in its export, as `GET /api/webhooks/` lists them: never their secrets. */
export const webhooksExport: ExportSection = {
  name: 'webhooks',
  item: zWebhookBody,
  async load(viewer, page) {
    const { rows } = await platform.db.execute<WebhookRow & { at: string; position_id: string }>(sql`
      SELECT id, owner_id, store_id, url, events, description, is_active, created_at, id AS position_id, ${positionAt(sql`created_at`)} AS at
      FROM webhooks WHERE owner_id = ${viewer.userId}::uuid AND ${olderThan(sql`created_at`, sql`id`, page.before)}
      ORDER BY created_at DESC, id DESC LIMIT ${page.limit}`);
    return withPositions(rows, serializeWebhook);
  },
};
