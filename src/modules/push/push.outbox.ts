import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { defineOutboxHandler, GiveUp, outboxClock, RetryAt, type OutboxJob } from '../../platform/outbox.js';
import { publishAfterCommit } from '../../platform/db.js';
import { platform } from '../../platform/index.js';
import { byOrdinal, gatheredReads } from '../../platform/gathered-reads.js';
import { notHiddenFrom } from '../policy/visibility.js';
import type { PushDevice, PushMessage } from './push-sender.js';
import { pushSenders } from './push-senders.js';
import { noteSuccess } from './push-successes.js';
import { collapseId, fitPayload, inQuietHours, pushBody, pushTitle, pushUrgency, PUSH_TTL_SECONDS } from './push.payload.js';

/**
 * Every notification pushed to each of its recipient's devices (DESIGN.md section 10), through the outbox: one row per
 * (notification, device), written by `pushOutboxRows` in the notification's own statement (one INSERT ... SELECT,
 * whatever the number of notifications), so a crash between the commit and the send loses none, and a row is claimed
 * by one node at a time (FOR UPDATE SKIP LOCKED): each (notification, device) is sent once unless the push service
 * failed. A community post's notifications are written by its fan-out's batches, outside the post's request, and
 * their pushes go out after each batch commits: no request or transaction waits on a push service.
 *
 * At send time (one query) the handler re-reads what may have changed since: the device (gone: nothing to do), the
 * notification (deleted, or read on another device: nothing to push), the person's preferences (the type switched
 * off, quiet hours: not pushed, except alerts in quiet hours), a block or mute between the two people made since,
 * and the badge (`unread_count`) and the count of people who did the same thing ("Ana and 4 others ...").
 *
 * Answers: sent (the device's last_success_at), gone (404/410, UNREGISTERED, BadDeviceToken: the device is deleted),
 * retry (429, 5xx, network: again after the handler's backoff or the service's Retry-After, whichever is later,
 * until 24 h after the notification), failed (a refused address, a 400: given up, the device kept). No answer ever
 * touches the notification.
 */
export const PUSH_KIND = 'push.send';
export const PUSH_RETRY_DELAYS_MS = [5_000, 15_000, 60_000, 120_000, 300_000, 600_000, 1_200_000, 2_400_000, 3_600_000, 7_200_000, 14_400_000, 14_400_000, 14_400_000, 14_400_000, 14_400_000] as const;

declare module '../../platform/outbox.js' {
  interface OutboxPayloads {
    'push.send': { notification_id: string; device_id: string };
  }
}

/**
 * The push outbox rows of notifications that the same statement inserts: one per (notification, device of its
 * recipient), leaving out the types the recipient switched off. A data-modifying statement for a WITH clause of the
 * notification's INSERT (notifyEach), over `inserted`, the CTE of the new rows (`id`, `user_id`,
 * `notification_type`): the notifications and their pushes are one statement, so one round trip in the
 * notification's own transaction. The statement must then call `pushesQueued` with the rows this one returned.
 */
export function pushOutboxRows(inserted: SQL): SQL {
  const now = outboxClock.now().toISOString();
  return sql`
    INSERT INTO outbox (kind, payload, run_at, created_at)
    SELECT ${PUSH_KIND}, jsonb_build_object('notification_id', n.id, 'device_id', d.id), ${now}::timestamptz, ${now}::timestamptz
    FROM ${inserted} n
    JOIN push_devices d ON d.user_id = n.user_id
    LEFT JOIN notification_preferences p ON p.user_id = n.user_id
    WHERE COALESCE((p.push ->> n.notification_type)::boolean, true)
    RETURNING 1`;
}

/** After `pushOutboxRows` wrote `count` rows: this node's outbox worker claims them as soon as they commit. */
export function pushesQueued(count: number): void {
  if (count) publishAfterCommit('outbox.queued', { kind: PUSH_KIND });
}

interface SendRow extends Record<string, unknown> {
  ord: number;
  user_id: string;
  notification_type: string;
  target_id: string | null;
  target_type: string | null;
  message: string;
  is_read: boolean;
  created_at: string | Date;
  actor_name: string | null;
  hidden: boolean;
  kind: PushDevice['kind'];
  address: string;
  p256dh: string | null;
  auth: string | null;
  environment: PushDevice['environment'];
  locale: string | null;
  last_success_at: string | Date | null;
  push: Record<string, boolean> | null;
  previews: boolean | null;
  quiet_start: string | null;
  quiet_end: string | null;
  quiet_time_zone: string | null;
  unread: number;
  actors: number;
}

/** Tests: what each push run decided (the stand-ins see only what was sent). */
export const pushHooks: { onOutcome?: (event: { notificationId: string; deviceId: string; outcome: string; reason?: string }) => void } = {};

/**
 * The statement that reads, for many (notification, device) pairs at once, what a push needs (one row per pair
 * still pushable; a pair whose notification or device is gone, or whose device changed hands, has none). Built
 * once: the same text on every call, only the two arrays are parameters.
 */
const SEND_READ = new PgDialect().sqlToQuery(sql`
  SELECT q.ord::int AS ord, n.user_id, n.notification_type, n.target_id, n.target_type, n.message, n.is_read, n.created_at,
         a.username AS actor_name,
         (n.actor_id IS NOT NULL AND NOT ${notHiddenFrom(sql`n.user_id`, sql`n.actor_id`)}) AS hidden,
         d.kind, d.address, d.p256dh, d.auth, d.environment, d.locale, d.last_success_at,
         p.push, p.previews, p.quiet_start, p.quiet_end, p.quiet_time_zone,
         (SELECT count(*)::int FROM notifications u WHERE u.user_id = n.user_id AND NOT u.is_read) AS unread,
         CASE WHEN n.target_id IS NULL OR n.actor_id IS NULL THEN 1 ELSE (
           SELECT count(DISTINCT s.actor_id)::int FROM notifications s
           WHERE s.user_id = n.user_id AND s.notification_type = n.notification_type AND s.target_id = n.target_id
             AND NOT s.is_read AND s.created_at <= n.created_at AND s.created_at > n.created_at - interval '24 hours') END AS actors
  FROM unnest(${sql.placeholder('notifications')}::uuid[], ${sql.placeholder('devices')}::uuid[]) WITH ORDINALITY AS q(notification_id, device_id, ord)
  JOIN notifications n ON n.id = q.notification_id
  JOIN push_devices d ON d.id = q.device_id AND d.user_id = n.user_id
  LEFT JOIN users a ON a.id = n.actor_id
  LEFT JOIN notification_preferences p ON p.user_id = n.user_id`);

/** Reads gathered per statement at most (a claim takes at most OUTBOX_MAX_IN_FLIGHT rows; this only bounds it). */
const SEND_READ_MAX = 256;

/** Tests and benches: statements sent and pushes they answered. */
export const pushReads = { reads: 0, pushes: 0 };

/**
 * What one push needs, read together with the other pushes of its claim (src/platform/gathered-reads.ts): the
 * outbox launches a claim's rows in one turn of the event loop, so they all join one statement (and so do pushes
 * launched while it waits for a pool connection). A flood of pushes then costs the database one statement per
 * claim, not one per push, and leaves the pool's other connections to requests and /health. Named on a server
 * database (planned once per connection); unnamed on PGlite, whose connections share one session.
 */
const readSendRow = gatheredReads<{ notificationId: string; deviceId: string }, SendRow>({
  max: SEND_READ_MAX,
  query: (keys, named) => ({
    name: named ? 'push_send_reads' : undefined,
    text: SEND_READ.sql,
    values: [keys.map((k) => k.notificationId), keys.map((k) => k.deviceId)],
  }),
  answers: byOrdinal<SendRow>('ord'),
  onSend: (pushes) => {
    pushReads.reads++;
    pushReads.pushes += pushes;
  },
});

async function runPush(payload: { notification_id: string; device_id: string }, job: OutboxJob): Promise<void> {
  const report = (outcome: string, reason?: string) => pushHooks.onOutcome?.({ notificationId: payload.notification_id, deviceId: payload.device_id, outcome, reason });
  const row = await readSendRow({ notificationId: payload.notification_id, deviceId: payload.device_id });
  // The notification or the device is gone, or the device changed hands: nothing to push.
  if (!row) return report('skipped', 'gone');
  if (row.is_read) return report('skipped', 'read');
  if (row.hidden) return report('skipped', 'blocked or muted');
  if (row.push && row.push[row.notification_type] === false) return report('skipped', 'type off');
  const now = outboxClock.now();
  const quiet = row.quiet_start && row.quiet_end && row.quiet_time_zone ? { start: row.quiet_start, end: row.quiet_end, time_zone: row.quiet_time_zone } : null;
  if (row.notification_type !== 'alert' && inQuietHours(quiet, now)) return report('skipped', 'quiet hours');
  const createdAt = new Date(row.created_at);
  const ttlSeconds = Math.floor(PUSH_TTL_SECONDS - (now.getTime() - createdAt.getTime()) / 1000);
  if (ttlSeconds <= 0) return report('skipped', 'expired');
  const sender = pushSenders(platform.config, platform.log).get(row.kind);
  if (!sender?.configured()) return report('skipped', 'kind not configured');

  const previews = row.previews ?? true;
  const message: PushMessage = {
    payload: fitPayload({
      notification_id: payload.notification_id,
      notification_type: row.notification_type,
      title: pushTitle(row.notification_type),
      // previews off: nothing another person wrote (their name included), the title alone says what happened.
      body: previews ? pushBody(row.notification_type, row.message, row.actor_name, row.actors) : '',
      target_type: row.target_type,
      target_id: row.target_id,
      unread_count: row.unread,
      created_at: createdAt.toISOString(),
    }),
    collapseId: collapseId(row.notification_type, row.target_id, payload.notification_id),
    ttlSeconds,
    urgency: pushUrgency(row.notification_type),
  };
  const device: PushDevice = {
    id: payload.device_id,
    kind: row.kind,
    endpoint: row.kind === 'webpush' ? row.address : null,
    keys: row.kind === 'webpush' && row.p256dh && row.auth ? { p256dh: row.p256dh, auth: row.auth } : null,
    token: row.kind === 'webpush' ? null : row.address,
    environment: row.environment,
    locale: row.locale,
  };
  const result = await sender.send(device, message);
  switch (result.outcome) {
    case 'sent':
      report('sent');
      // At most once a minute per device, and written together with other devices' (one statement a second).
      if (!row.last_success_at || now.getTime() - new Date(row.last_success_at).getTime() > 60_000) noteSuccess(payload.device_id, now);
      return;
    case 'gone':
      report('gone', result.reason);
      platform.log.info({ deviceId: payload.device_id, kind: row.kind, status: result.status, reason: result.reason }, 'push device gone: removed');
      await platform.db.execute(sql`DELETE FROM push_devices WHERE id = ${payload.device_id}::uuid`);
      return;
    case 'failed':
      report('failed', result.reason);
      platform.log.warn({ deviceId: payload.device_id, kind: row.kind, status: result.status, reason: result.reason }, 'push refused; not retried');
      return;
    case 'retry': {
      report('retry', result.reason);
      const deadline = createdAt.getTime() + PUSH_TTL_SECONDS * 1000;
      const at = new Date(now.getTime() + (result.retryAfterMs ?? 0));
      const next = Math.max(at.getTime(), job.retryAt?.getTime() ?? Infinity);
      if (!job.retryAt || next >= deadline) throw new GiveUp(`${result.reason}; no retry before the push's 24 h are over`);
      throw new RetryAt(result.reason, at);
    }
  }
}

export const pushSendHandler = defineOutboxHandler({
  kind: PUSH_KIND,
  maxInFlight: 64,
  // Longer than the slowest send (15 s timeout) and its two statements.
  leaseMs: 60_000,
  retryDelaysMs: PUSH_RETRY_DELAYS_MS,
  run: runPush,
});
