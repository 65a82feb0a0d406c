import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import { serverBaseUrl } from '../../core/server-base-url.js';

/**
 * The email digest (DESIGN.md section 10; docs/modules/notifications.md, "Email digest"): a person whose
 * `email_digest` is 'daily' or 'weekly' gets one mail per period listing their unread notifications since their last
 * digest, and none when there are none. The hourly job (digest.job.ts, one node under its lock) mails everyone due:
 * whose digest was last considered at least a period ago (30 minutes' slack, so the hour it goes out does not creep).
 * The first digest lists the unread of the last period. Each mail carries a one-click unsubscribe (RFC 8058):
 * `List-Unsubscribe: <https://…/api/notifications/digest/unsubscribe/?token=…>` and
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click`; the token is the person's id with an HMAC-SHA256 under a key
 * derived (HKDF) from the JWT signing secret, so it needs no storage and cannot be made for someone else.
 */
export const DIGEST_PERIODS = { daily: '1 day', weekly: '7 days' } as const;
export type DigestPeriod = keyof typeof DIGEST_PERIODS;
export const DIGEST_MAX_LISTED = 50;
const BATCH = 200;
const SLACK = '30 minutes';

let cachedKey: { from: string; key: Buffer } | null = null;
function tokenKey(): Buffer {
  const from = platform.jwtSecret;
  if (cachedKey?.from === from) return cachedKey.key;
  cachedKey = { from, key: Buffer.from(crypto.hkdfSync('sha256', from, 'hyperlocal', 'digest-unsubscribe-v1', 32)) };
  return cachedKey.key;
}

const mac = (userId: string) => crypto.createHmac('sha256', tokenKey()).update(`digest-unsubscribe:${userId}`).digest('base64url');

/** `<user id>.<mac>`: what the unsubscribe link carries. */
export function unsubscribeToken(userId: string): string {
  return `${userId}.${mac(userId)}`;
}

/** The person a token was made for, or null when it was not made by this service (altered, or for another key). */
export function readUnsubscribeToken(token: string): string | null {
  const match = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return null;
  const expected = Buffer.from(mac(match[1]));
  const given = Buffer.from(match[2]);
  return expected.length === given.length && crypto.timingSafeEqual(expected, given) ? match[1] : null;
}

export function unsubscribeUrl(userId: string): string {
  return `${serverBaseUrl()}/api/notifications/digest/unsubscribe/?token=${encodeURIComponent(unsubscribeToken(userId))}`;
}

/** One-click unsubscribe: the digest off. No preferences row means it is off already. */
export async function stopDigest(userId: string): Promise<void> {
  await platform.db.execute(sql`UPDATE notification_preferences SET email_digest = 'off', updated_at = now() WHERE user_id = ${userId}::uuid AND email_digest <> 'off'`);
}

interface Due {
  user_id: string;
  email: string;
  display_name: string;
  email_digest: DigestPeriod;
  digest_checked_at: string | null;
  digest_sent_at: string | null;
  since: string;
}

interface Unread {
  message: string;
  notification_type: string;
  created_at: string;
  total: number;
}

/** Mails every digest due at `now`; answers how many people were considered, mailed, had nothing, or failed. */
export async function sendDueDigests(now: Date = new Date()): Promise<{ considered: number; mailed: number; empty: number; failed: number }> {
  const at = now.toISOString();
  const counts = { considered: 0, mailed: 0, empty: 0, failed: 0 };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await platform.db.execute<Due & Record<string, unknown>>(sql`
      SELECT p.user_id, u.email, u.display_name, p.email_digest, p.digest_checked_at, p.digest_sent_at,
             coalesce(p.digest_sent_at, ${at}::timestamptz - CASE p.email_digest WHEN 'daily' THEN interval '1 day' ELSE interval '7 days' END) AS since
      FROM notification_preferences p JOIN users u ON u.id = p.user_id
      WHERE p.email_digest IN ('daily', 'weekly') AND u.is_active AND p.user_id > ${after}::uuid
        AND (p.digest_checked_at IS NULL OR p.digest_checked_at <=
             ${at}::timestamptz - CASE p.email_digest WHEN 'daily' THEN interval '1 day' ELSE interval '7 days' END + ${SLACK}::interval)
      ORDER BY p.user_id LIMIT ${BATCH}`);
    for (const due of rows) {
      counts.considered++;
      const outcome = await digestFor(due, at);
      counts[outcome]++;
    }
    if (rows.length < BATCH) return counts;
    after = rows[rows.length - 1].user_id;
  }
}

async function digestFor(due: Due, at: string): Promise<'mailed' | 'empty' | 'failed'> {
  const { rows: unread } = await platform.db.execute<Unread & Record<string, unknown>>(sql`
    SELECT message, notification_type, created_at, count(*) OVER ()::int AS total
    FROM notifications
    WHERE user_id = ${due.user_id}::uuid AND NOT is_read AND created_at > ${due.since}::timestamptz AND created_at <= ${at}::timestamptz
    ORDER BY created_at DESC, id DESC LIMIT ${DIGEST_MAX_LISTED}`);
  // Claimed before mailing, only if nobody else did meanwhile: a second run (or node) finds it done and sends nothing.
  const claimed = await platform.db.execute(sql`
    UPDATE notification_preferences
    SET digest_checked_at = ${at}::timestamptz, digest_sent_at = ${unread.length ? sql`${at}::timestamptz` : sql`digest_sent_at`}
    WHERE user_id = ${due.user_id}::uuid AND digest_checked_at IS NOT DISTINCT FROM ${due.digest_checked_at}::timestamptz`);
  if (!claimed.rowCount) return 'empty';
  if (!unread.length) return 'empty';
  try {
    await platform.mailer.send(digestMail(due, unread));
    return 'mailed';
  } catch (err) {
    // Not mailed: put the claim back, so the next run tries again with the same list.
    await platform.db.execute(sql`
      UPDATE notification_preferences SET digest_checked_at = ${due.digest_checked_at}::timestamptz, digest_sent_at = ${due.digest_sent_at}::timestamptz
      WHERE user_id = ${due.user_id}::uuid AND digest_checked_at = ${at}::timestamptz`);
    platform.log.warn({ err, userId: due.user_id }, 'a notification digest could not be mailed; the next run tries again');
    return 'failed';
  }
}

function digestMail(due: Due, unread: Unread[]) {
  const total = unread[0].total;
  const period = due.email_digest === 'daily' ? 'daily' : 'weekly';
  const url = unsubscribeUrl(due.user_id);
  const lines = unread.map((n) => `- ${n.message} (${new Date(n.created_at).toISOString().slice(0, 16).replace('T', ' ')} UTC)`);
  if (total > unread.length) lines.push(`…and ${total - unread.length} more.`);
  const text = [
    `Hello ${due.display_name},`,
    '',
    `${total === 1 ? 'One notification is' : `${total} notifications are`} waiting for you since your last digest:`,
    '',
    ...lines,
    '',
    'Open the app to read them.',
    '',
    '--',
    `You get this ${period} digest because you asked for it in your notification preferences.`,
    `Stop these mails with one click: ${url}`,
  ].join('\n');
  return {
    to: due.email,
    subject: `Your ${period} digest: ${total} unread notification${total === 1 ? '' : 's'}`,
    text,
    headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}
