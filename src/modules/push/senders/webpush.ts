import http from 'node:http';
import https from 'node:https';
import webpush from 'web-push';
import { checkPublicUrl, pinnedLookup, type Resolve } from '../../../platform/public-address.js';
import { encryptPush, stopEncryptThread, warmEncryptThread, type Encrypted } from './webpush-encrypt.js';
import type { PushDevice, PushMessage, PushSender, PushSendResult } from '../push-sender.js';
import type { VapidDetails } from '../vapid.js';

/**
 * Web Push (RFC 8030) through the `web-push` library: the payload encrypted with `aes128gcm` (RFC 8291) to the
 * browser's key and auth secret, the request signed with VAPID (RFC 8292); `Topic` (the collapse id), `TTL` and
 * `Urgency` headers. web-push builds the request (generateRequestDetails); this file sends it, because the endpoint
 * is a URL a stranger chose (DESIGN.md section 10):
 * - https only (plain http too, with loopback and private addresses, only under PUSH_ALLOW_PRIVATE_ENDPOINTS);
 * - the host is resolved at send time, every address must be public (src/platform/public-address.ts), and the
 *   connection goes to the address checked (the agent's `lookup` answers it): DNS rebinding gains nothing;
 * - no redirect is followed (a 3xx is a failed push), and the whole request is bounded by `timeoutMs`.
 * Connections are kept alive per (origin, checked address), so a flood to one push service reuses its sockets.
 */
export const WEBPUSH_TIMEOUT_MS = 15_000;
const MAX_AGENTS = 256;
/** A VAPID token's life (RFC 8292 allows at most 24 h). */
const VAPID_TOKEN_SECONDS = 12 * 3600;

export interface WebPushSenderOptions {
  vapid: VapidDetails;
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Every address of a name (tests stub it to reach private ranges without a packet leaving loopback). */
  resolve?: Resolve;
}

export interface WebPushSender extends PushSender {
  kind: 'webpush';
  vapid: VapidDetails;
}

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function createWebPushSender(opts: WebPushSenderOptions): WebPushSender {
  const timeoutMs = opts.timeoutMs ?? WEBPUSH_TIMEOUT_MS;
  warmEncryptThread();
  const agents = new Map<string, http.Agent>();
  const agentFor = (url: URL, checked: { address: string; family: number }): http.Agent => {
    const key = `${url.protocol}//${url.host}|${checked.address}`;
    let agent = agents.get(key);
    if (agent) {
      // Most recently used last, so the first is the one to let go.
      agents.delete(key);
      agents.set(key, agent);
      return agent;
    }
    const options = { keepAlive: true, maxSockets: 32, lookup: pinnedLookup(checked) };
    agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
    if (agents.size > MAX_AGENTS) {
      const [oldestKey, oldest] = agents.entries().next().value!;
      agents.delete(oldestKey);
      oldest.destroy();
    }
    return agent;
  };

  /**
   * The VAPID `Authorization` header per push service origin (the token's `aud`), signed by web-push and reused until
   * an hour before it expires (12 h): RFC 8292 lets a token serve many requests, and signing one (ES256, with the key
   * converted to PEM by web-push each time) costs more than encrypting the payload.
   */
  const tokens = new Map<string, { header: string; renewAt: number }>();
  function vapidAuthorization(audience: string): string {
    const now = Date.now();
    const kept = tokens.get(audience);
    if (kept && kept.renewAt > now) return kept.header;
    const expiresAt = Math.floor(now / 1000) + VAPID_TOKEN_SECONDS;
    const { Authorization } = webpush.getVapidHeaders(audience, opts.vapid.subject, opts.vapid.publicKey, opts.vapid.privateKey, 'aes128gcm', expiresAt) as { Authorization: string };
    if (tokens.size >= MAX_AGENTS) tokens.delete(tokens.keys().next().value!);
    tokens.set(audience, { header: Authorization, renewAt: (expiresAt - 3600) * 1000 });
    return Authorization;
  }

  async function send(device: PushDevice, message: PushMessage): Promise<PushSendResult> {
    if (!device.endpoint || !device.keys) return { outcome: 'failed', status: null, reason: 'The device has no endpoint or keys.' };
    let url: URL;
    try {
      url = new URL(device.endpoint);
    } catch {
      return { outcome: 'failed', status: null, reason: 'The endpoint is not a valid URL.' };
    }
    const checked = await checkPublicUrl(url, { allowPrivate: opts.allowPrivate, resolve: opts.resolve });
    if ('refused' in checked) return { outcome: 'failed', status: null, reason: checked.refused };
    let details: Encrypted;
    try {
      // Encrypted in a worker thread (webpush-encrypt.ts); the VAPID token comes from the cache below (web-push would
      // sign one per push).
      details = await encryptPush({
        endpoint: device.endpoint,
        keys: device.keys,
        payload: JSON.stringify(message.payload),
        options: { TTL: Math.max(0, Math.floor(message.ttlSeconds)), urgency: message.urgency, topic: message.collapseId, contentEncoding: 'aes128gcm' },
      });
    } catch (err) {
      // A key that is not a P-256 point, an auth secret of the wrong size...: the subscription can never work.
      return { outcome: 'gone', status: 0, reason: `The subscription's keys are not usable: ${(err as Error).message}`.slice(0, 300) };
    }
    details.headers.Authorization = vapidAuthorization(`${url.protocol}//${url.host}`);
    const agent = agentFor(url, checked);
    return new Promise<PushSendResult>((resolve) => {
      let settled = false;
      const finish = (result: PushSendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = url.protocol === 'https:' ? https.request : http.request;
      const req = request(url, { method: 'POST', headers: details.headers as http.OutgoingHttpHeaders, agent });
      const timer = setTimeout(() => {
        req.destroy();
        finish({ outcome: 'retry', status: null, reason: `No answer within ${timeoutMs / 1000} s.` });
      }, timeoutMs);
      req.on('error', (err) => finish({ outcome: 'retry', status: null, reason: `${(err as NodeJS.ErrnoException).code ?? 'error'}: ${err.message}`.slice(0, 300) }));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < 500) text += chunk;
        });
        const done = () => {
          const reason = `${status} ${text.slice(0, 200)}`.trim();
          if (status >= 200 && status < 300) finish({ outcome: 'sent', status });
          else if (status === 404 || status === 410) finish({ outcome: 'gone', status, reason });
          else if (status === 429 || status >= 500) finish({ outcome: 'retry', status, reason, retryAfterMs: retryAfterMs(res.headers['retry-after']) });
          // 3xx (never followed), 400, 401, 403, 413...: this push will not go.
          else finish({ outcome: 'failed', status, reason });
        };
        res.on('end', done);
        res.on('error', done);
      });
      req.end(details.body ?? undefined);
    });
  }

  return {
    kind: 'webpush',
    vapid: opts.vapid,
    configured: () => true,
    send,
    async close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
      stopEncryptThread();
    },
  };
}
