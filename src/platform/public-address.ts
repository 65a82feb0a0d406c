import dns from 'node:dns';
import net from 'node:net';

/**
 * Which addresses the service may send to when a stranger chose the URL (webhooks, DESIGN.md section 12; Web Push
 * endpoints, section 10): public unicast only. Checked on the addresses the name resolves to at send time, and the
 * connection goes to the address checked (webhooks/sender.ts, push/senders/webpush.ts), so a name that resolves
 * elsewhere a second later (DNS rebinding) gains nothing. Both senders use `checkPublicUrl` and `pinnedLookup`.
 */
// Two lists: node's BlockList matches an IPv4 address against IPv6 rules through its mapped form (::ffff:a.b.c.d),
// so one list holding ::ffff:0:0/96 would refuse every IPv4 address.
const blockedV4 = new net.BlockList();
const blockedV6 = new net.BlockList();
// IPv4: "this" network, private (RFC 1918), carrier-grade NAT, loopback, link-local, IETF protocol assignments,
// documentation, benchmarking, multicast, reserved and broadcast.
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) blockedV4.addSubnet(prefix, bits, 'ipv4');
// IPv6: unspecified, loopback, IPv4-mapped and -translated (checked as IPv4 below, refused here whole), discard,
// documentation, unique local (fc00::/7), link-local (fe80::/10), site-local, multicast, 6to4 and Teredo (they embed
// an IPv4 address a relay would reach), NAT64.
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) blockedV6.addSubnet(prefix, bits, 'ipv6');

/** True for a public unicast address (one a webhook or a push may be sent to). */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !blockedV4.check(address, 'ipv4');
  if (family !== 6) return false;
  // IPv4-mapped addresses are refused whole (::ffff:0:0/96), the dotted form (::ffff:127.0.0.1) included.
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address)) return false;
  return !blockedV6.check(address, 'ipv6');
}

export type Resolve = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const defaultResolve: Resolve = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * The address a request to `url` must connect to, or why it may not be sent: https only (plain http too when
 * `allowPrivate`), no credentials in the URL, and every address the name resolves to now public (unless
 * `allowPrivate`). Connect to the address answered (a `lookup` that gives it), never resolve the name again.
 */
export async function checkPublicUrl(url: URL, opts: { allowPrivate: boolean; resolve?: Resolve }): Promise<{ address: string; family: number } | { refused: string }> {
  if (url.protocol !== 'https:' && !(opts.allowPrivate && url.protocol === 'http:')) return { refused: 'Only https URLs are allowed.' };
  if (url.username || url.password) return { refused: 'URLs with credentials are not allowed.' };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await (opts.resolve ?? defaultResolve)(host);
    } catch (err) {
      return { refused: `The host name could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'}).` };
    }
  }
  if (!addresses.length) return { refused: 'The host name resolves to no address.' };
  if (!opts.allowPrivate) {
    const inside = addresses.find((a) => !isPublicAddress(a.address));
    if (inside) return { refused: `The host resolves to an address that is not public (${inside.address}).` };
  }
  return addresses[0];
}

/** A `lookup` for http(s).request and agents that answers the checked address, whatever name it is asked. */
export function pinnedLookup(checked: { address: string; family: number }): net.LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as dns.LookupAllOptions).all) (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [checked]);
    else callback(null, checked.address, checked.family);
  };
}
