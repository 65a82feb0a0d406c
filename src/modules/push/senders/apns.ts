import fs from 'node:fs';
import crypto from 'node:crypto';
import http2 from 'node:http2';
import type { Config } from '../../../platform/config.js';
import type { Logger } from '../../../platform/logger.js';
import type { PushDevice, PushMessage, PushSendResult, PushSender } from '../push-sender.js';
import { retryAfterMs, signJwt } from './jws.js';
import { fitBody } from './fit.js';

/**
 * iOS through APNs (docs/push.md, "iOS: APNs"): HTTP/2 to `POST /3/device/<token>`, token-based authentication.
 * - The provider token is a JWT signed ES256 with the `.p8` key (kid = APNS_KEY_ID, iss = APNS_TEAM_ID, iat). Apple
 *   refuses one older than an hour (403 ExpiredProviderToken) and one renewed more often than every 20 minutes
 *   (429 TooManyProviderTokenUpdates): each is used for 50 minutes, and an ExpiredProviderToken answer renews it
 *   early (never before 20 minutes) and the push is tried once more.
 * - One HTTP/2 session per origin is kept open and shared by every push (Apple asks for few, long connections);
 *   it is dropped when the server sends GOAWAY or the socket closes, and opened again on the next push. `close()`
 *   ends them at shutdown. Pushes beyond the streams APNs takes at once (its SETTINGS_MAX_CONCURRENT_STREAMS: one
 *   until its first SETTINGS arrive) wait for a stream instead of being refused (REFUSED_STREAM).
 * - A device registered with `environment: 'sandbox'` (a development build) goes to the sandbox origin; APNS_ENDPOINT,
 *   when set, serves every device.
 * Answers: 200 sent; 410 (Unregistered), 400 BadDeviceToken and DeviceTokenNotForTopic: gone; 429 and 5xx: retry,
 * honouring Retry-After when given; any other: failed.
 */
const PRODUCTION_ORIGIN = 'https://api.push.apple.com';
const SANDBOX_ORIGIN = 'https://api.sandbox.push.apple.com';
const TOKEN_REUSE_MS = 50 * 60_000;
const TOKEN_MIN_AGE_MS = 20 * 60_000;
const REQUEST_TIMEOUT_MS = 10_000;
const SESSION_IDLE_MS = 30 * 60_000;
/** Streams in flight on one connection, at most (APNs announces its own limit, about 1,000). */
const MAX_STREAMS = 1000;

interface Gate {
  active: number;
  limit: number;
  waiting: Array<() => void>;
}
const gates = new WeakMap<http2.ClientHttp2Session, Gate>();

/** Lets as many waiting pushes try again as there are free streams (each checks again: waking too many is harmless). */
function wake(gate: Gate): void {
  let free = gate.limit - gate.active;
  while (gate.waiting.length && free-- > 0) gate.waiting.shift()!();
}

export interface ApnsSenderOptions {
  /** The clock (tests). */
  now?: () => number;
  /** Origins per environment; default: APNS_ENDPOINT for both, else Apple's. */
  origins?: { production: string; sandbox: string };
}

type ApnsConfig = Pick<Config, 'APNS_KEY_FILE' | 'APNS_KEY_ID' | 'APNS_TEAM_ID' | 'APNS_TOPIC' | 'APNS_ENDPOINT' | 'APNS_CA_FILE'>;

export function createApnsSender(config: ApnsConfig, log?: Logger, opts: ApnsSenderOptions = {}): PushSender {
  const now = opts.now ?? Date.now;
  const origins = opts.origins ?? {
    production: config.APNS_ENDPOINT ?? PRODUCTION_ORIGIN,
    sandbox: config.APNS_ENDPOINT ?? SANDBOX_ORIGIN,
  };
  let settings: { key: crypto.KeyObject; ca: string | undefined } | null | undefined;
  let token: { value: string; issuedAt: number } | null = null;
  const sessions = new Map<string, http2.ClientHttp2Session>();
  let closed = false;

  function load() {
    if (settings !== undefined) return settings;
    const { APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID, APNS_TOPIC } = config;
    if (!APNS_KEY_FILE || !APNS_KEY_ID || !APNS_TEAM_ID || !APNS_TOPIC) return (settings = null);
    try {
      const key = crypto.createPrivateKey(fs.readFileSync(APNS_KEY_FILE, 'utf8'));
      if (key.asymmetricKeyType !== 'ec') throw new Error('APNS_KEY_FILE is not an EC (P-256) key');
      settings = { key, ca: config.APNS_CA_FILE ? fs.readFileSync(config.APNS_CA_FILE, 'utf8') : undefined };
    } catch (err) {
      log?.error({ err, file: APNS_KEY_FILE }, 'APNS_KEY_FILE cannot be read: APNs devices are refused');
      settings = null;
    }
    return settings;
  }

  function providerToken(key: crypto.KeyObject): string {
    const at = now();
    if (token && at - token.issuedAt < TOKEN_REUSE_MS) return token.value;
    token = { value: signJwt('ES256', key, { kid: config.APNS_KEY_ID }, { iss: config.APNS_TEAM_ID, iat: Math.floor(at / 1000) }), issuedAt: at };
    return token.value;
  }

  /** After ExpiredProviderToken: a new token, unless the one refused is already replaced or too young to replace. */
  function renewToken(refused: string) {
    if (token?.value === refused && now() - token.issuedAt >= TOKEN_MIN_AGE_MS) token = null;
  }

  function session(origin: string, ca: string | undefined): http2.ClientHttp2Session {
    const open = sessions.get(origin);
    if (open && !open.closed && !open.destroyed) return open;
    const created = http2.connect(origin, ca ? { ca } : {});
    // Streams in flight on it: one until APNs says how many it takes (its SETTINGS), then that many.
    const gate: Gate = { active: 0, limit: 1, waiting: [] };
    gates.set(created, gate);
    created.on('remoteSettings', (settings) => {
      gate.limit = Math.max(1, Math.min(settings.maxConcurrentStreams ?? MAX_STREAMS, MAX_STREAMS));
      wake(gate);
    });
    const forget = () => {
      if (sessions.get(origin) === created) sessions.delete(origin);
    };
    created.on('goaway', forget);
    created.on('close', () => {
      forget();
      // Those waiting for a stream on it go on to the next session.
      gate.limit = Infinity;
      wake(gate);
    });
    created.on('error', (err) => {
      forget();
      log?.warn({ err, origin }, 'APNs connection failed');
    });
    created.setTimeout(SESSION_IDLE_MS, () => created.close());
    sessions.set(origin, created);
    return created;
  }

  /** A stream slot on the origin's session (waiting while APNs' limit of streams in flight is reached). */
  async function slot(origin: string, ca: string | undefined): Promise<{ session: http2.ClientHttp2Session; release: () => void }> {
    const deadline = Date.now() + REQUEST_TIMEOUT_MS;
    for (;;) {
      const current = session(origin, ca);
      const gate = gates.get(current)!;
      if (gate.active >= gate.limit) {
        const waited = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => {
            gate.waiting.splice(gate.waiting.indexOf(go), 1);
            resolve(false);
          }, Math.max(0, deadline - Date.now()));
          const go = () => {
            clearTimeout(timer);
            resolve(true);
          };
          gate.waiting.push(go);
        });
        if (!waited) throw new Error('timed out waiting for a stream');
        continue;
      }
      if (current.closed || current.destroyed) continue;
      gate.active++;
      let released = false;
      return {
        session: current,
        release: () => {
          if (released) return;
          released = true;
          gate.active--;
          wake(gate);
        },
      };
    }
  }

  async function request(origin: string, ca: string | undefined, headers: http2.OutgoingHttpHeaders, body: string) {
    const { session: current, release } = await slot(origin, ca);
    return new Promise<{ status: number; headers: http2.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const stream = current.request(headers);
      let answer: http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      stream.setTimeout(REQUEST_TIMEOUT_MS, () => stream.close(http2.constants.NGHTTP2_CANCEL));
      stream.on('response', (h) => (answer = h));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => resolve({ status: Number(answer[':status'] ?? 0), headers: answer, body: Buffer.concat(chunks).toString('utf8') }));
      stream.on('close', () => {
        release();
        if (!answer[':status']) reject(new Error(stream.rstCode === http2.constants.NGHTTP2_CANCEL ? 'timed out' : `stream closed (${stream.rstCode})`));
      });
      stream.on('error', (err) => {
        release();
        reject(err);
      });
      stream.end(body);
    });
  }

  return {
    kind: 'apns',
    configured: () => load() !== null,
    async send(device: PushDevice, message: PushMessage): Promise<PushSendResult> {
      const loaded = load();
      if (!loaded) return { outcome: 'failed', status: null, reason: 'APNs is not configured' };
      if (closed) return { outcome: 'retry', status: null, reason: 'shutting down' };
      if (!device.token || !/^[0-9a-fA-F]{1,200}$/.test(device.token)) return { outcome: 'failed', status: null, reason: 'the device token is not hex' };
      const origin = device.environment === 'sandbox' ? origins.sandbox : origins.production;
      const body = JSON.stringify(apnsBody(message));
      try {
        for (let attempt = 0; ; attempt++) {
          const bearer = providerToken(loaded.key);
          const answer = await request(origin, loaded.ca, apnsHeaders(device.token, message, config.APNS_TOPIC!, bearer, now()), body);
          const reason = readReason(answer.body) ?? `HTTP ${answer.status}`;
          if (answer.status === 403 && reason === 'ExpiredProviderToken' && attempt === 0) {
            renewToken(bearer);
            continue;
          }
          return apnsResult(answer.status, reason, answer.headers['retry-after'], now());
        }
      } catch (err) {
        return { outcome: 'retry', status: null, reason: `APNs unreachable: ${(err as Error).message}` };
      }
    },
    async close() {
      closed = true;
      await Promise.all([...sessions.values()].map((s) => new Promise<void>((resolve) => (s.closed ? resolve() : s.close(() => resolve())))));
      sessions.clear();
    },
  };
}

export function apnsHeaders(deviceToken: string, message: PushMessage, topic: string, bearer: string, now: number): http2.OutgoingHttpHeaders {
  return {
    ':method': 'POST',
    ':path': `/3/device/${deviceToken}`,
    authorization: `bearer ${bearer}`,
    'apns-topic': topic,
    'apns-push-type': 'alert',
    'apns-priority': message.urgency === 'high' ? '10' : '5',
    'apns-expiration': String(Math.floor(now / 1000) + Math.max(0, Math.floor(message.ttlSeconds))),
    'apns-collapse-id': message.collapseId,
    'content-type': 'application/json',
  };
}

/** APNs' limit for one push's JSON body. */
export const APNS_MAX_BYTES = 4096;

/**
 * `aps` for the system (alert, badge, a sound for what is urgent, the thread that groups it), the payload beside it
 * for the app. The shown body (`aps.alert.body`) is cut when the whole would pass APNs' 4 KB; the payload stays whole.
 */
export function apnsBody(message: PushMessage) {
  const { payload } = message;
  return fitBody(payload.body, APNS_MAX_BYTES, (body) => ({
    aps: {
      alert: { title: payload.title, body },
      badge: payload.unread_count,
      ...(message.urgency === 'high' ? { sound: 'default' } : {}),
      'thread-id': payload.notification_type,
    },
    ...payload,
  }));
}

function readReason(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { reason?: string }).reason;
  } catch {
    return undefined;
  }
}

function apnsResult(status: number, reason: string, retryAfter: string | string[] | undefined, now: number): PushSendResult {
  if (status === 200) return { outcome: 'sent', status };
  if (status === 410 || (status === 400 && (reason === 'BadDeviceToken' || reason === 'DeviceTokenNotForTopic'))) return { outcome: 'gone', status, reason };
  if (status === 429 || status >= 500) {
    const after = retryAfterMs(retryAfter, now);
    return after === undefined ? { outcome: 'retry', status, reason } : { outcome: 'retry', status, reason, retryAfterMs: after };
  }
  return { outcome: 'failed', status, reason };
}
