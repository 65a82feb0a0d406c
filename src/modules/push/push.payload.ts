import crypto from 'node:crypto';
import type { PushPayload } from './push-sender.js';

/**
 * What a push carries and how pushes replace each other (DESIGN.md section 10). Pure functions: the outbox handler
 * (push.outbox.ts) reads the notification, the counts and the preferences, then builds the message here.
 */
export const MAX_PAYLOAD_BYTES = 3000;
export const PUSH_TTL_SECONDS = 24 * 3600;

/** The title of a push, by notification type: never anything another person wrote. */
const TITLES: Record<string, string> = {
  mention: 'New mention',
  post_like: 'New like',
  post_reply: 'New comment',
  comment_reply: 'New reply',
  new_post: 'New post',
  new_message: 'New message',
  general: 'New notification',
  alert: 'Alert',
};

/** "Ana and 4 others <verb>": the types whose pushes about one target count their actors. */
const COUNTED_VERBS: Record<string, string> = {
  post_like: 'liked your post',
  post_reply: 'commented on your post',
  mention: 'mentioned you',
  new_message: 'sent you messages',
};

export function pushTitle(type: string): string {
  return TITLES[type] ?? `New ${type.replace(/_/g, ' ')}`;
}

/** Urgency `high` for direct messages and alerts (alerts are also pushed in quiet hours), `normal` otherwise. */
export function pushUrgency(type: string): 'high' | 'normal' {
  return type === 'new_message' || type === 'alert' ? 'high' : 'normal';
}

/**
 * `<notification_type>-<target_id>` hashed to 32 URL-safe characters (Web Push `Topic` allows at most 32 of the
 * base64url alphabet; FCM's collapse_key and APNs' apns-collapse-id take it as it is). A notification with no target
 * replaces nothing: its own id stands for the target.
 */
export function collapseId(type: string, targetId: string | null, notificationId: string): string {
  return crypto.createHash('sha256').update(`${type}-${targetId ?? notificationId}`).digest('base64url').slice(0, 32);
}

/**
 * The body: the notification's own words, or, when several people did the same thing to one target since the person
 * last read (`actors` distinct people, the latest first), "Ana and 4 others liked your post".
 */
export function pushBody(type: string, message: string, latestActor: string | null, actors: number): string {
  const verb = COUNTED_VERBS[type];
  if (!verb || !latestActor || actors < 2) return message;
  const others = actors - 1;
  return `${latestActor} and ${others} ${others === 1 ? 'other' : 'others'} ${verb}`;
}

/** Cut `text` to at most `bytes` UTF-8 bytes, on a character boundary, with an ellipsis when cut. */
export function cutUtf8(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  if (bytes < 3) return '';
  let out = '';
  let used = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch);
    if (used + size > bytes - 3) break;
    out += ch;
    used += size;
  }
  return `${out}…`;
}

/** The payload, at most MAX_PAYLOAD_BYTES as JSON: `body` is cut to fit (the title is ours and short). */
export function fitPayload(payload: PushPayload): PushPayload {
  const empty = Buffer.byteLength(JSON.stringify({ ...payload, body: '' }));
  if (empty + Buffer.byteLength(JSON.stringify(payload.body)) - 2 <= MAX_PAYLOAD_BYTES) return payload;
  // JSON escaping may grow a character (a quote, a control character): cut until the whole fits.
  let room = MAX_PAYLOAD_BYTES - empty;
  let body = cutUtf8(payload.body, room);
  while (room > 0 && Buffer.byteLength(JSON.stringify({ ...payload, body })) > MAX_PAYLOAD_BYTES) {
    room -= 16;
    body = cutUtf8(payload.body, room);
  }
  return { ...payload, body };
}

/** Is `at` inside quiet hours `start`–`end` (HH:MM, end excluded; across midnight when end ≤ start) in `timeZone`? */
export function inQuietHours(quiet: { start: string; end: string; time_zone: string } | null, at: Date): boolean {
  if (!quiet) return false;
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: quiet.time_zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const hour = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  const now = hour * 60 + minute;
  const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  const start = toMinutes(quiet.start);
  const end = toMinutes(quiet.end);
  if (start === end) return false;
  return start < end ? now >= start && now < end : now >= start || now < end;
}
