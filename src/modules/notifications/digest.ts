import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { platform } from '../../platform/index.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import { publishAfterCommit } from '../../platform/db.js';
import { outboxClock } from '../../platform/outbox.js';

/** The outbox kind of one digest mail (digest.outbox.ts). */
export const DIGEST_MAIL_KIND = 'notifications.digest_mail';

/**
 * The email digest (DESIGN.md section 10; docs/modules/notifications.md, "Email digest"): a person whose
 * `email_digest` is 'daily' or 'weekly' gets one mail per period listing their unread notifications since their last
 * digest, and none when there are none. The hourly job (digest.job.ts, one node under its lock) claims everyone due
 * (whose digest was last considered at least a period ago, 30 minutes' slack so the hour it goes out does not creep)
 * and writes each mail as outbox work (digest.outbox.ts), which any node sends after the commit.
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

/** What a digest mail needs, claimed by the job (`sendDueDigests`) and mailed by the outbox (digest.outbox.ts). */
export interface DigestMailWork {
  user_id: string;
  period: DigestPeriod;
  /** The unread notifications created after `since` and up to `until` are listed. */
  since: string;
  until: string;
}

interface Unread {
  message: string;
  notification_type: string;
  created_at: string;
  total: number;
}

/**
 * Claims every digest due at `now`, 200 people per statement, and leaves the mails to the outbox: each person with
 * something unread gets one `notifications.digest_mail` row, written by the same statement that claims their digest
 * (`digest_checked_at` compared with what the scan read, so a second run or node claims nothing), so a process that
 * dies after the claim loses no mail (the outbox runs it on any node), and the job itself sends none: its time does
 * not grow with the mail server's, and the mails go out OUTBOX_MAX_IN_FLIGHT-bounded. Answers how many people were
 * considered, how many mails were queued, and how many had nothing unread (or were claimed by another run meanwhile).
 */
export async function sendDueDigests(now: Date = new Date()): Promise<{ considered: number; queued: number; empty: number }> {
  const at = now.toISOString();
  const queuedAt = outboxClock.now().toISOString();
  const counts = { considered: 0, queued: 0, empty: 0 };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await platform.db.execute<{ considered: number; queued: number; last_user_id: string | null }>(sql`
      WITH due AS (
        SELECT p.user_id, p.email_digest, p.digest_checked_at,
               coalesce(p.digest_sent_at, ${at}::timestamptz - CASE p.email_digest WHEN 'daily' THEN interval '1 day' ELSE interval '7 days' END) AS since
        FROM notification_preferences p JOIN users u ON u.id = p.user_id
        WHERE p.email_digest IN ('daily', 'weekly') AND u.is_active AND p.user_id > ${after}::uuid
          AND (p.digest_checked_at IS NULL OR p.digest_checked_at <=
               ${at}::timestamptz - CASE p.email_digest WHEN 'daily' THEN interval '1 day' ELSE interval '7 days' END + ${SLACK}::interval)
        ORDER BY p.user_id LIMIT ${BATCH}
      ),
      looked AS (
        SELECT due.*, EXISTS (
          SELECT 1 FROM notifications n
          WHERE n.user_id = due.user_id AND NOT n.is_read AND n.created_at > due.since AND n.created_at <= ${at}::timestamptz) AS unread
        FROM due
      ),
      claimed AS (
        UPDATE notification_preferences p
        SET digest_checked_at = ${at}::timestamptz, digest_sent_at = CASE WHEN looked.unread THEN ${at}::timestamptz ELSE p.digest_sent_at END
        FROM looked
        WHERE p.user_id = looked.user_id AND p.digest_checked_at IS NOT DISTINCT FROM looked.digest_checked_at
        RETURNING looked.user_id, looked.email_digest, looked.since, looked.unread
      ),
      queued AS (
        INSERT INTO outbox (kind, payload, run_at, created_at)
        SELECT ${DIGEST_MAIL_KIND}, jsonb_build_object('user_id', user_id, 'period', email_digest, 'since', since, 'until', ${at}::timestamptz),
               ${queuedAt}::timestamptz, ${queuedAt}::timestamptz
        FROM claimed WHERE unread
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM due)::int AS considered, (SELECT count(*) FROM queued)::int AS queued,
             (SELECT max(user_id::text) FROM due) AS last_user_id`);
    const { considered, queued, last_user_id } = rows[0]!;
    counts.considered += considered;
    counts.queued += queued;
    counts.empty += considered - queued;
    if (queued) publishAfterCommit('outbox.queued', { kind: DIGEST_MAIL_KIND });
    if (considered < BATCH || !last_user_id) return counts;
    after = last_user_id;
  }
}

/**
 * The outbox's run of one digest mail: the person and the list read now (an account deactivated, or a digest turned
 * off, since the claim: no mail; notifications read meanwhile are left out, and with none left there is no mail).
 * A mail the mail server refuses throws, and the outbox tries again later.
 */
export async function mailDigest(work: DigestMailWork): Promise<'mailed' | 'nothing'> {
  const { rows: people } = await platform.db.execute<{ email: string; display_name: string; is_active: boolean; email_digest: string | null }>(sql`
    SELECT u.email, u.display_name, u.is_active, p.email_digest
    FROM users u LEFT JOIN notification_preferences p ON p.user_id = u.id
    WHERE u.id = ${work.user_id}::uuid`);
  const person = people[0];
  if (!person || !person.is_active || person.email_digest === 'off' || !person.email_digest) return 'nothing';
  const { rows: unread } = await platform.db.execute<Unread & Record<string, unknown>>(sql`
    SELECT message, notification_type, created_at, count(*) OVER ()::int AS total
    FROM notifications
    WHERE user_id = ${work.user_id}::uuid AND NOT is_read AND created_at > ${work.since}::timestamptz AND created_at <= ${work.until}::timestamptz
    ORDER BY created_at DESC, id DESC LIMIT ${DIGEST_MAX_LISTED}`);
  if (!unread.length) return 'nothing';
  await platform.mailer.send(digestMail({ user_id: work.user_id, email: person.email, display_name: person.display_name, email_digest: work.period }, unread));
  return 'mailed';
}

function digestMail(due: { user_id: string; email: string; display_name: string; email_digest: DigestPeriod }, unread: Unread[]) {
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
