import net from 'node:net';

/**
 * Who is calling, for rate limits and view tracking. X-Forwarded-* headers are believed only when they
 * come from a proxy on a loopback, private or link-local address (nginx in the cluster profile, a load
 * balancer inside the same network): a client connecting directly could otherwise name any address it
 * likes and get a fresh rate-limit budget with every request. REST (Express's `trust proxy`) and the
 * socket handshake use this same rule.
 */
const TRUSTED_PROXY_RANGES = new net.BlockList();
TRUSTED_PROXY_RANGES.addSubnet('127.0.0.0', 8, 'ipv4');
TRUSTED_PROXY_RANGES.addSubnet('10.0.0.0', 8, 'ipv4');
TRUSTED_PROXY_RANGES.addSubnet('172.16.0.0', 12, 'ipv4');
TRUSTED_PROXY_RANGES.addSubnet('192.168.0.0', 16, 'ipv4');
TRUSTED_PROXY_RANGES.addSubnet('169.254.0.0', 16, 'ipv4');
TRUSTED_PROXY_RANGES.addAddress('::1', 'ipv6');
TRUSTED_PROXY_RANGES.addSubnet('fc00::', 7, 'ipv6');
TRUSTED_PROXY_RANGES.addSubnet('fe80::', 10, 'ipv6');

export function isTrustedProxy(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
  const family = net.isIPv4(plain) ? 'ipv4' : net.isIPv6(plain) ? 'ipv6' : null;
  return family !== null && TRUSTED_PROXY_RANGES.check(plain, family);
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
