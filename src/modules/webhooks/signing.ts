import crypto from 'node:crypto';
import { secretBytes } from './secrets.js';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`
 * keyed with the secret's bytes; several signatures (a rotation's new and old secrets) are space-separated, and a
 * receiver accepts the message when any one verifies.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => 'v1,' + crypto.createHmac('sha256', secretBytes(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')).join(' ');
}

export function webhookHeaders(secrets: readonly string[], id: string, body: string, timestampSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'hyperlocal-webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(secrets, id, timestampSeconds, body),
  };
}
