import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import type { ExportSection } from '../../core/leaving.js';
import { olderThan, positionAt, withPositions } from '../../core/export-paging.js';
import { serializePushDevice, zPushSubscriptionBody, type PushDeviceRow } from './push.serializer.js';

/** The account's push devices in its export, as `GET /api/push/subscriptions/` lists them: never endpoints, keys or tokens. */
export const pushDevicesExport: ExportSection = {
  name: 'push_subscriptions',
  item: zPushSubscriptionBody,
  async load(viewer, page) {
    const { rows } = await platform.db.execute<PushDeviceRow & { at: string; position_id: string }>(sql`
      SELECT id, kind, created_at, last_success_at, id AS position_id, ${positionAt(sql`created_at`)} AS at
      FROM push_devices WHERE user_id = ${viewer.userId}::uuid AND ${olderThan(sql`created_at`, sql`id`, page.before)}
      ORDER BY created_at DESC, id DESC LIMIT ${page.limit}`);
    return withPositions(rows, serializePushDevice);
  },
};
