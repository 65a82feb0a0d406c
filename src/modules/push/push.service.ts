import { sql } from 'drizzle-orm';
import type { AuthedContext } from '../../core/context.js';
import { fieldError, notFound } from '../../core/errors.js';
import { pageParams, paginated } from '../../core/pagination.js';
import { platform } from '../../platform/index.js';
import { transaction, type DbOrTx } from '../../platform/db.js';
import type { PushDeviceKind } from './push-sender.js';
import { isKindConfigured, pushSenders } from './push-senders.js';
import { serializePushDevice, type PushDeviceRow, type PushSubscriptionBody } from './push.serializer.js';
import type { WebPushSender } from './senders/webpush.js';

/**
 * A person's devices (DESIGN.md section 10): one per Web Push subscription, FCM registration token or APNs device
 * token. The same endpoint or token subscribed again answers 200 and belongs from then on to the caller (a phone that
 * changed hands); at most MAX_DEVICES per person, the oldest goes.
 */
export const MAX_DEVICES = 20;

export interface SubscribeInput {
  kind: PushDeviceKind;
  endpoint?: string;
  keys?: { p256dh: string; auth: string };
  token?: string;
  environment?: 'production' | 'sandbox';
  locale?: string | null;
}

export async function subscribe(ctx: AuthedContext, input: SubscribeInput): Promise<{ status: 200 | 201; body: PushSubscriptionBody }> {
  if (!isKindConfigured(platform.config, platform.log, input.kind)) throw fieldError('kind', `Push through ${input.kind} is not configured on this server.`);
  const address = input.kind === 'webpush' ? input.endpoint! : input.token!;
  const userId = ctx.user.id;
  return transaction(platform.db, async (tx) => {
    // One subscribe at a time per person, so the cap holds when a phone subscribes twice at once.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`push-devices:${userId}`}))`);
    const { rows } = await tx.execute<PushDeviceRow & { inserted: boolean }>(sql`
      INSERT INTO push_devices AS d (user_id, kind, address, p256dh, auth, environment, locale)
      VALUES (${userId}::uuid, ${input.kind}, ${address}, ${input.keys?.p256dh ?? null}, ${input.keys?.auth ?? null},
              ${input.kind === 'apns' ? (input.environment ?? 'production') : null}, ${input.locale ?? null})
      ON CONFLICT (kind, address) DO UPDATE SET
        user_id = EXCLUDED.user_id, p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth, environment = EXCLUDED.environment,
        locale = COALESCE(EXCLUDED.locale, d.locale)
      RETURNING id, kind, created_at, last_success_at, (xmax = 0) AS inserted`);
    const device = rows[0];
    await tx.execute(sql`
      DELETE FROM push_devices WHERE id IN (
        SELECT id FROM push_devices WHERE user_id = ${userId}::uuid AND id <> ${device.id}::uuid
        ORDER BY created_at DESC, id DESC OFFSET ${MAX_DEVICES - 1})`);
    return { status: device.inserted ? 201 : 200, body: serializePushDevice(device) };
  });
}

export async function listDevices(ctx: AuthedContext, input: { page?: number; page_size?: number }) {
  const params = pageParams(input, { size: MAX_DEVICES, max: MAX_DEVICES });
  const { rows } = await platform.db.execute<PushDeviceRow & { total: number }>(sql`
    SELECT id, kind, created_at, last_success_at, count(*) OVER ()::int AS total FROM push_devices
    WHERE user_id = ${ctx.user.id}::uuid ORDER BY created_at DESC, id DESC LIMIT ${params.limit} OFFSET ${params.offset}`);
  let count = rows[0]?.total ?? 0;
  if (!rows.length && params.offset > 0) {
    const counted = await platform.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM push_devices WHERE user_id = ${ctx.user.id}::uuid`);
    count = counted.rows[0].n;
  }
  return paginated(ctx, '/api/push/subscriptions/', params, count, rows.map(serializePushDevice));
}

/** Anyone else's device, or none, is 404. */
export async function unsubscribe(ctx: AuthedContext, id: string): Promise<void> {
  const { rows } = await platform.db.execute(sql`DELETE FROM push_devices WHERE id = ${id}::uuid AND user_id = ${ctx.user.id}::uuid RETURNING id`);
  if (!rows.length) throw notFound();
}

/** Logout with `push_subscription_id`: that device of the person logging out gets no more pushes. */
export async function endDeviceAtLogout(db: DbOrTx, userId: string, deviceId: string): Promise<void> {
  await db.execute(sql`DELETE FROM push_devices WHERE id = ${deviceId}::uuid AND user_id = ${userId}::uuid`);
}

export function vapidPublicKey(): { public_key: string } {
  const sender = pushSenders(platform.config, platform.log).get('webpush') as WebPushSender | undefined;
  if (!sender) throw fieldError('kind', 'Push through webpush is not configured on this server.');
  return { public_key: sender.vapid.publicKey };
}
