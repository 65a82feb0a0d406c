import fs from 'node:fs';
import path from 'node:path';
import webpush from 'web-push';
import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/logger.js';

/**
 * The VAPID key pair (RFC 8292) that signs every Web Push request, and the subject the push services may write to.
 * VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (base64url, as `web-push generate-vapid-keys` prints them), or, when unset,
 * a pair generated on first start and kept in DATA_DIR/vapid-keys.json (like JWT_SECRET in DATA_DIR/jwt-secret), so
 * `npm start` pushes to browsers with no configuration and a restart keeps every subscription valid. Several nodes
 * must share the pair: set the variables (a browser subscribed with one public key refuses pushes signed by another).
 */
export interface VapidDetails {
  subject: string;
  publicKey: string;
  privateKey: string;
}

const DEFAULT_SUBJECT = 'mailto:push@hyperlocal.invalid';

export function resolveVapid(config: Pick<Config, 'VAPID_PUBLIC_KEY' | 'VAPID_PRIVATE_KEY' | 'VAPID_SUBJECT' | 'PUBLIC_BASE_URL' | 'dataDir'>, log: Logger): VapidDetails {
  const subject = config.VAPID_SUBJECT ?? (config.PUBLIC_BASE_URL?.startsWith('https://') ? config.PUBLIC_BASE_URL : DEFAULT_SUBJECT);
  if (config.VAPID_PUBLIC_KEY && config.VAPID_PRIVATE_KEY) return { subject, publicKey: config.VAPID_PUBLIC_KEY, privateKey: config.VAPID_PRIVATE_KEY };
  const file = path.join(config.dataDir, 'vapid-keys.json');
  const read = (): VapidDetails | null => {
    try {
      const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { publicKey?: string; privateKey?: string };
      return kept.publicKey && kept.privateKey ? { subject, publicKey: kept.publicKey, privateKey: kept.privateKey } : null;
    } catch {
      return null;
    }
  };
  const kept = read();
  if (kept) return kept;
  fs.mkdirSync(config.dataDir, { recursive: true });
  const keys = webpush.generateVAPIDKeys();
  try {
    // 'wx': two processes starting on one DATA_DIR at once keep the first pair written.
    fs.writeFileSync(file, JSON.stringify(keys), { mode: 0o600, flag: 'wx' });
    log.warn({ file }, 'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are not set: generated a pair and kept it in DATA_DIR; set them when several nodes serve');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const other = read();
    if (other) return other;
  }
  return { subject, ...keys };
}
