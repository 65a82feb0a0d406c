/**
 * The contract between the push pipeline (push.outbox.ts: who gets what, when, with which badge) and the three
 * push services (DESIGN.md section 10). One sender per device kind; each speaks its protocol and reports what the
 * push service answered in these few words, so the pipeline alone decides about retries and dead devices.
 */

export type PushDeviceKind = 'webpush' | 'fcm' | 'apns';

/** One of a person's devices as the senders need it (secrets included: never serialised to a client). */
export interface PushDevice {
  id: string;
  kind: PushDeviceKind;
  /** webpush: the subscription's endpoint URL (a URL a stranger chose: checked at send time). */
  endpoint: string | null;
  /** webpush: the browser's P-256 public key and auth secret, base64url. */
  keys: { p256dh: string; auth: string } | null;
  /** fcm: the registration token; apns: the device token (hex). */
  token: string | null;
  /** apns only. */
  environment: 'production' | 'sandbox' | null;
  locale: string | null;
}

/** What a push carries (DESIGN 10): at most 3,000 bytes as JSON, `body` cut to fit. */
export interface PushPayload {
  notification_id: string;
  notification_type: string;
  title: string;
  body: string;
  target_type: string | null;
  target_id: string | null;
  unread_count: number;
  created_at: string;
}

export interface PushMessage {
  payload: PushPayload;
  /** `<notification_type>-<target_id>` hashed to ≤ 32 URL-safe characters: Topic, collapse_key, apns-collapse-id. */
  collapseId: string;
  /** Seconds the push service may keep it for an unreachable device (24 h less the time already waited). */
  ttlSeconds: number;
  urgency: 'high' | 'normal';
}

export type PushSendResult =
  /** The push service accepted it. */
  | { outcome: 'sent'; status: number }
  /** The device is gone (404/410 Web Push, UNREGISTERED FCM, 410/BadDeviceToken APNs): remove it, never retry. */
  | { outcome: 'gone'; status: number; reason: string }
  /** 429 or 5xx or a network failure: try again later, no sooner than retryAfterMs when the service said so. */
  | { outcome: 'retry'; status: number | null; reason: string; retryAfterMs?: number }
  /** Anything else (a refused address, 400 from the service): give up on this push, keep the device. */
  | { outcome: 'failed'; status: number | null; reason: string };

export interface PushSender {
  kind: PushDeviceKind;
  /** False when its settings are missing: subscribing a device of this kind is then 400 `{kind: ['…not configured…']}`. */
  configured(): boolean;
  send(device: PushDevice, message: PushMessage): Promise<PushSendResult>;
  /** Closes HTTP/2 sessions and the like at shutdown. */
  close?(): Promise<void>;
}
