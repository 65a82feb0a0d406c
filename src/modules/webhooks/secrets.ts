import crypto from 'node:crypto';
import { platform } from '../../platform/index.js';

/**
 * Webhook secrets: `whsec_` + base64 of 24 random bytes (the Standard Webhooks form; the receiver's library takes it
 * as it is). They are needed in clear to sign, so they cannot be hashed; they are sealed with AES-256-GCM under a key
 * that is not in the database: HKDF-SHA256 of WEBHOOK_SECRET_KEY when set, else of the JWT signing secret (itself
 * JWT_SECRET or generated into DATA_DIR), with a label of its own. A dump of the database alone hands out nothing;
 * changing the key (or the JWT secret without WEBHOOK_SECRET_KEY) makes the stored secrets unreadable, and their
 * webhooks must rotate (docs/webhooks.md).
 */
export const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(24).toString('base64');
}

/** The bytes an HMAC is keyed with: what follows the prefix, base64-decoded (as the receiver's library does). */
export function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

let cached: { from: string; key: Buffer } | null = null;
function sealingKey(): Buffer {
  const from = platform.config.WEBHOOK_SECRET_KEY ?? platform.jwtSecret;
  if (cached?.from === from) return cached.key;
  const key = Buffer.from(crypto.hkdfSync('sha256', from, 'hyperlocal', 'webhook-secrets-v1', 32));
  cached = { from, key };
  return key;
}

/** `v1.` + base64url(iv ‖ tag ‖ ciphertext). */
export function sealSecret(secret: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', sealingKey(), iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return 'v1.' + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

/** The secret, or throws when it was sealed under another key (or altered). */
export function openSecret(sealed: string): string {
  if (!sealed.startsWith('v1.')) throw new Error('unknown sealed secret format');
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  const decipher = crypto.createDecipheriv('aes-256-gcm', sealingKey(), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
