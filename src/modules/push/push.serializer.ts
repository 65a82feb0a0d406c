import { z } from 'zod';

/** A device as its owner sees it (`GET /api/push/subscriptions/`, the export): never its endpoint's keys or token. */
export const zPushSubscriptionBody = z
  .object({
    id: z.string(),
    kind: z.enum(['webpush', 'fcm', 'apns']),
    created_at: z.string(),
    last_success_at: z.string().nullable(),
  })
  .meta({ id: 'PushSubscription' });
export type PushSubscriptionBody = z.infer<typeof zPushSubscriptionBody>;

export interface PushDeviceRow extends Record<string, unknown> {
  id: string;
  kind: 'webpush' | 'fcm' | 'apns';
  created_at: string | Date;
  last_success_at: string | Date | null;
}

const iso = (v: string | Date) => new Date(v).toISOString();

export function serializePushDevice(row: PushDeviceRow): PushSubscriptionBody {
  return { id: row.id, kind: row.kind, created_at: iso(row.created_at), last_success_at: row.last_success_at ? iso(row.last_success_at) : null };
}
