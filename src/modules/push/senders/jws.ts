import crypto from 'node:crypto';

/**
 * A compact JWS (RFC 7515) signed with node:crypto, the one thing FCM's OAuth2 assertion (RS256) and the APNs
 * provider token (ES256) need. ES256 signatures are the raw r ‖ s (IEEE P1363) that JOSE requires, not DER.
 */
export function signJwt(alg: 'RS256' | 'ES256', key: crypto.KeyObject, header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ alg, typ: 'JWT', ...header })}.${encode(claims)}`;
  const signature = crypto.sign('sha256', Buffer.from(input), alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key);
  return `${input}.${signature.toString('base64url')}`;
}

/** Milliseconds to wait from a Retry-After header (seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | null | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
