import net from 'node:net';

/**
 * Who is calling, for rate limits and view tracking. X-Forwarded-* headers are believed only when they
 * come from a proxy the operator named in TRUSTED_PROXIES (by default the loopback addresses): behind
 * Docker or Kubernetes every client may arrive from a private address after source NAT, so "any private
 * peer" would let clients name any address they like and get a fresh rate-limit budget with every
 * request. REST (Express's `trust proxy`) and the socket handshake use this same rule.
 */

/** Names accepted in TRUSTED_PROXIES besides addresses and CIDR ranges (Express's names). */
const NAMED_RANGES: Record<string, Array<[string, number, 'ipv4' | 'ipv6']>> = {
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  linklocal: [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ],
  uniquelocal: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['fc00::', 7, 'ipv6'],
  ],
};

export class TrustedProxiesError extends Error {}

/**
 * Parse a TRUSTED_PROXIES value: comma-separated addresses (`10.0.0.5`, `fd00::2`), CIDR ranges
 * (`172.18.0.0/16`, `fd00::/8`), the names `loopback`, `linklocal`, `uniquelocal`, or `none` alone.
 * Throws TrustedProxiesError naming the first entry it cannot read.
 */
export function parseTrustedProxies(spec: string): net.BlockList {
  const list = new net.BlockList();
  const entries = spec
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 1 && entries[0].toLowerCase() === 'none') return list;
  if (!entries.length) throw new TrustedProxiesError('give addresses, CIDR ranges, "loopback" or "none"');
  for (const entry of entries) {
    const named = NAMED_RANGES[entry.toLowerCase()];
    if (named) {
      for (const [address, prefix, family] of named) list.addSubnet(address, prefix, family);
      continue;
    }
    const [address, prefixText, ...extra] = entry.split('/');
    const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : null;
    const maxPrefix = family === 'ipv4' ? 32 : 128;
    const prefix = prefixText === undefined ? maxPrefix : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (!family || extra.length || !(prefix >= 0 && prefix <= maxPrefix)) throw new TrustedProxiesError(`"${entry}" is not an address, a CIDR range, or one of loopback, linklocal, uniquelocal, none`);
    list.addSubnet(address, prefix, family);
  }
  return list;
}

let trusted = parseTrustedProxies('loopback');

/** Set at start from TRUSTED_PROXIES (already validated by the configuration). */
export function configureTrustedProxies(spec: string): void {
  trusted = parseTrustedProxies(spec);
}

export function isTrustedProxy(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
  const family = net.isIPv4(plain) ? 'ipv4' : net.isIPv6(plain) ? 'ipv6' : null;
  return family !== null && trusted.check(plain, family);
}

/**
 * The client's address: starting from the connection's peer, step back through X-Forwarded-For (right to
 * left) for as long as the hop we stand on is a trusted proxy. This is what Express computes for `req.ip`.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined): string {
  const hops = (forwardedFor ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  let address = peer ?? '';
  while (hops.length && isTrustedProxy(address)) address = hops.pop()!;
  return address;
}
