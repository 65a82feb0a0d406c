import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isPublicAddress } from './address-check.js';

/**
 * One HTTP attempt of a webhook, with the outbound rules of DESIGN.md section 12:
 * - `https` only (plain `http` too, only under WEBHOOK_ALLOW_PRIVATE_ENDPOINTS, for tests and local receivers);
 * - the name is resolved now, every address it resolves to must be public (address-check.ts), and the connection
 *   goes to the address that was checked (a `lookup` that answers it), so a second resolution cannot point it
 *   elsewhere (DNS rebinding); TLS still verifies the certificate against the name;
 * - no redirect is followed (a 3xx is a failed attempt);
 * - the whole attempt is bounded by `timeoutMs` (15 s), and at most 1 KB of the answer is kept.
 * Nothing here touches the database: no transaction or request waits on a receiver.
 */
export const WEBHOOK_TIMEOUT_MS = 15_000;
export const KEPT_RESPONSE_BYTES = 1024;

export type SendResult =
  | { outcome: 'answered'; statusCode: number; body: string }
  /** Not sent: the URL or the address is not allowed. */
  | { outcome: 'refused'; reason: string }
  /** Sent or tried, no answer: connection refused, TLS, timeout... */
  | { outcome: 'failed'; reason: string };

export interface SendOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Every address of a name (tests stub it). */
  resolve?: (hostname: string) => Promise<Array<{ address: string; family: number }>>;
  /** What opens the connection (tests pass one that fails the test if it is ever called). */
  request?: (url: URL, options: https.RequestOptions) => http.ClientRequest;
}

const defaultResolve = (hostname: string) => dns.promises.lookup(hostname, { all: true, verbatim: true });
const defaultRequest = (url: URL, options: https.RequestOptions) => (url.protocol === 'https:' ? https.request(url, options) : http.request(url, options));

/** The address to connect to, or why not. */
export async function checkedAddress(url: URL, opts: Pick<SendOptions, 'allowPrivate' | 'resolve'>): Promise<{ address: string; family: number } | { refused: string }> {
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

export async function sendWebhook(urlText: string, body: string, headers: Record<string, string>, opts: SendOptions): Promise<SendResult> {
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return { outcome: 'refused', reason: 'The URL is not valid.' };
  }
  const checked = await checkedAddress(url, opts);
  if ('refused' in checked) return { outcome: 'refused', reason: checked.refused };
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const lookup: net.LookupFunction = (_hostname, options, callback) => {
    if ((options as dns.LookupAllOptions).all) (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [checked]);
    else callback(null, checked.address, checked.family);
  };
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const req = (opts.request ?? defaultRequest)(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup,
      agent: false,
    });
    const timer = setTimeout(() => finish({ outcome: 'failed', reason: `No answer within ${timeoutMs / 1000} s.` }), timeoutMs);
    req.on('error', (err) => finish({ outcome: 'failed', reason: `${(err as NodeJS.ErrnoException).code ?? 'error'}: ${err.message}`.slice(0, 300) }));
    req.on('response', (res) => {
      const kept: Buffer[] = [];
      let size = 0;
      const done = () => finish({ outcome: 'answered', statusCode: res.statusCode ?? 0, body: Buffer.concat(kept).toString('utf8') });
      res.on('data', (chunk: Buffer) => {
        if (size < KEPT_RESPONSE_BYTES) kept.push(chunk.subarray(0, KEPT_RESPONSE_BYTES - size));
        size += chunk.length;
        // Enough kept: the rest of a large answer is not read.
        if (size >= KEPT_RESPONSE_BYTES) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.end(body);
  });
}
