import fs from 'node:fs';
import crypto from 'node:crypto';
import type { Config } from '../../../platform/config.js';
import type { Logger } from '../../../platform/logger.js';
import type { PushDevice, PushMessage, PushSendResult, PushSender } from '../push-sender.js';
import { retryAfterMs, signJwt } from './jws.js';
import { fitBody } from './fit.js';

/**
 * Android (and any FCM client) through FCM's HTTP v1 API (docs/push.md, "Android: FCM"):
 * `POST {FCM_ENDPOINT}/v1/projects/{project_id}/messages:send` with an OAuth2 access token that the service account
 * gets for itself: a JWT assertion signed RS256 with its private key (iss = client_email, aud = token_uri, scope
 * firebase.messaging, one hour), exchanged at its token_uri (RFC 7523 `jwt-bearer` grant). The token is kept until
 * five minutes before it expires; concurrent sends share one exchange. A 401 drops it and the send is tried once
 * more with a fresh one. An exchange the token endpoint refuses (4xx: a revoked or wrong key) fails the push; its
 * 429 and 5xx, and an unreachable endpoint, retry it.
 *
 * The message carries the payload twice: `data` (every field, as strings: FCM's rule) for the app, and
 * `notification` {title, body} so that Android shows it while the app is not running. The pipeline has already
 * reduced the payload when the person turned previews off (DESIGN 10): nothing here adds words of anyone's.
 * Answers: 200 sent; 404 (UNREGISTERED), 403 SENDER_ID_MISMATCH and 400 INVALID_ARGUMENT about the token: gone;
 * 429 and 5xx (and QUOTA_EXCEEDED, UNAVAILABLE, INTERNAL): retry, honouring Retry-After; any other 400: failed.
 */
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const DEFAULT_ENDPOINT = 'https://fcm.googleapis.com';
const TOKEN_LIFETIME_S = 3600;
const REFRESH_BEFORE_MS = 5 * 60_000;
const REQUEST_TIMEOUT_MS = 10_000;

interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

export interface FcmSenderOptions {
  /** The clock (tests). */
  now?: () => number;
}

export function readServiceAccount(file: string): ServiceAccount {
  const account = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ServiceAccount>;
  for (const field of ['project_id', 'client_email', 'private_key', 'token_uri'] as const) {
    if (typeof account[field] !== 'string' || !account[field]) throw new Error(`FCM_SERVICE_ACCOUNT: the key file has no ${field}`);
  }
  return account as ServiceAccount;
}

export function createFcmSender(config: Pick<Config, 'FCM_SERVICE_ACCOUNT' | 'FCM_ENDPOINT'>, log?: Logger, opts: FcmSenderOptions = {}): PushSender {
  const now = opts.now ?? Date.now;
  let account: { value: ServiceAccount; key: crypto.KeyObject } | null | undefined;
  let token: { value: string; expiresAt: number } | null = null;
  let pendingToken: Promise<string> | null = null;

  /** The key file, read once; null (not configured) when unset or unreadable. */
  function loadAccount() {
    if (account !== undefined) return account;
    if (!config.FCM_SERVICE_ACCOUNT) return (account = null);
    try {
      const value = readServiceAccount(config.FCM_SERVICE_ACCOUNT);
      account = { value, key: crypto.createPrivateKey(value.private_key) };
    } catch (err) {
      log?.error({ err, file: config.FCM_SERVICE_ACCOUNT }, 'FCM_SERVICE_ACCOUNT cannot be read: FCM devices are refused');
      account = null;
    }
    return account;
  }

  async function exchange(sa: NonNullable<typeof account>): Promise<string> {
    const iat = Math.floor(now() / 1000);
    const assertion = signJwt(
      'RS256',
      sa.key,
      sa.value.private_key_id ? { kid: sa.value.private_key_id } : {},
      { iss: sa.value.client_email, scope: FCM_SCOPE, aud: sa.value.token_uri, iat, exp: iat + TOKEN_LIFETIME_S },
    );
    const response = await fetch(sa.value.token_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = (await response.json().catch(() => null)) as { access_token?: string; expires_in?: number; error?: string } | null;
    if (!response.ok || !body?.access_token) {
      throw new TokenError(response.status, `FCM token exchange answered ${response.status}${body?.error ? ` ${body.error}` : ''}`);
    }
    token = { value: body.access_token, expiresAt: now() + (body.expires_in ?? TOKEN_LIFETIME_S) * 1000 - REFRESH_BEFORE_MS };
    return body.access_token;
  }

  function accessToken(sa: NonNullable<typeof account>): Promise<string> {
    if (token && token.expiresAt > now()) return Promise.resolve(token.value);
    pendingToken ??= exchange(sa).finally(() => (pendingToken = null));
    return pendingToken;
  }

  async function post(sa: NonNullable<typeof account>, body: string, bearer: string) {
    const endpoint = (config.FCM_ENDPOINT ?? DEFAULT_ENDPOINT).replace(/\/+$/, '');
    return fetch(`${endpoint}/v1/projects/${encodeURIComponent(sa.value.project_id)}/messages:send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json; charset=utf-8' },
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  }

  return {
    kind: 'fcm',
    configured: () => loadAccount() !== null,
    async send(device: PushDevice, message: PushMessage): Promise<PushSendResult> {
      const sa = loadAccount();
      if (!sa) return { outcome: 'failed', status: null, reason: 'FCM is not configured' };
      if (!device.token) return { outcome: 'failed', status: null, reason: 'the device has no FCM token' };
      const body = JSON.stringify(fcmMessage(device.token, message));
      try {
        let bearer = await accessToken(sa);
        let response = await post(sa, body, bearer);
        if (response.status === 401) {
          // The token was revoked or expired early: one fresh exchange, one more try.
          await response.body?.cancel();
          if (token?.value === bearer) token = null;
          bearer = await accessToken(sa);
          response = await post(sa, body, bearer);
        }
        return await fcmResult(response, now());
      } catch (err) {
        if (err instanceof TokenError) {
          log?.warn({ status: err.status }, err.message);
          // The token endpoint's own failures pass; a refused assertion (a revoked or wrong key) would refuse every retry.
          const passing = err.status === 429 || err.status >= 500;
          return { outcome: passing ? 'retry' : 'failed', status: err.status, reason: err.message };
        }
        return { outcome: 'retry', status: null, reason: `FCM unreachable: ${(err as Error).message}` };
      }
    },
  };
}

class TokenError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What FCM takes at most in one message's `data` and `notification` together (4 KB, with room for the keys). */
export const FCM_MAX_BYTES = 4000;

/**
 * The v1 `message` (https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages). The shown body
 * (`notification.body`) is cut when data and notification together would pass FCM's 4 KB; `data` stays whole.
 */
export function fcmMessage(token: string, message: PushMessage) {
  const { payload } = message;
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload)) if (value !== null && value !== undefined) data[key] = String(value);
  const shown = fitBody(payload.body, FCM_MAX_BYTES, (body) => ({ data, notification: { title: payload.title, body } }));
  return {
    message: {
      token,
      ...shown,
      android: {
        collapse_key: message.collapseId,
        priority: message.urgency === 'high' ? 'HIGH' : 'NORMAL',
        ttl: `${Math.max(0, Math.floor(message.ttlSeconds))}s`,
        // The tag replaces a shown notification about the same thing (collapse_key only merges those still queued).
        notification: { tag: message.collapseId, notification_count: payload.unread_count },
      },
    },
  };
}

interface FcmErrorBody {
  error?: { code?: number; status?: string; message?: string; details?: { '@type'?: string; errorCode?: string; fieldViolations?: { field?: string }[] }[] };
}

async function fcmResult(response: Response, now: number): Promise<PushSendResult> {
  const status = response.status;
  if (status >= 200 && status < 300) {
    await response.body?.cancel();
    return { outcome: 'sent', status };
  }
  const body = ((await response.json().catch(() => null)) ?? {}) as FcmErrorBody;
  const errorCode = body.error?.details?.find((d) => d.errorCode)?.errorCode;
  const reason = [errorCode ?? body.error?.status ?? `HTTP ${status}`, body.error?.message].filter(Boolean).join(': ');
  if (status === 404 || errorCode === 'UNREGISTERED' || errorCode === 'SENDER_ID_MISMATCH') return { outcome: 'gone', status, reason };
  if (status === 400 && aboutTheToken(body)) return { outcome: 'gone', status, reason };
  if (status === 429 || status >= 500 || errorCode === 'QUOTA_EXCEEDED' || errorCode === 'UNAVAILABLE' || errorCode === 'INTERNAL') {
    const after = retryAfterMs(response.headers.get('retry-after'), now);
    return after === undefined ? { outcome: 'retry', status, reason } : { outcome: 'retry', status, reason, retryAfterMs: after };
  }
  return { outcome: 'failed', status, reason };
}

/** A 400 INVALID_ARGUMENT whose field is the token, or whose message says the registration token is not valid. */
function aboutTheToken(body: FcmErrorBody): boolean {
  const error = body.error;
  if (!error || (error.status !== 'INVALID_ARGUMENT' && !error.details?.some((d) => d.errorCode === 'INVALID_ARGUMENT'))) return false;
  if (error.details?.some((d) => d.fieldViolations?.some((v) => v.field === 'message.token'))) return true;
  return /registration token/i.test(error.message ?? '');
}
