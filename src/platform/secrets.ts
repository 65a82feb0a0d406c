import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Logger } from './logger.js';

/** JWT_SECRET, or one generated on first start and kept in DATA_DIR so tokens survive restarts. */
export function resolveJwtSecret(configured: string | undefined, dataDir: string, log: Logger): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'jwt-secret');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(dataDir, { recursive: true });
  const secret = crypto.randomBytes(48).toString('base64url');
  fs.writeFileSync(file, secret, { mode: 0o600 });
  log.warn({ file }, 'JWT_SECRET is not set: generated one and kept it in DATA_DIR; set JWT_SECRET in production');
  return secret;
}

/**
 * The signing key as a KeyObject. jsonwebtoken 9, given a string, first tries to parse it as a PEM public
 * key on every sign and verify (crypto.createPublicKey, about a quarter of the CPU of a request); a
 * secret KeyObject skips that.
 */
export function signingKey(secret: string): crypto.KeyObject {
  return crypto.createSecretKey(Buffer.from(secret, 'utf8'));
}
