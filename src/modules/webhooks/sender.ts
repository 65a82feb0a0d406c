import http from 'node:http';
import https from 'node:https';
import { checkPublicUrl, pinnedLookup, type Resolve } from '../../platform/public-address.js';

/**
 * One HTTP attempt of a webhook, with the outbound rules of DESIGN.md section 12:
 * - `https` only (plain `http` too, only under WEBHOOK_ALLOW_PRIVATE_ENDPOINTS, for tests and local receivers);
 * - the name is resolved now, every address it resolves to must be public (src/platform/public-address.ts), and the connection
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
  resolve?: Resolve;
  /** What opens the connection (tests pass one that fails the test if it is ever called). */
  request?: (url: URL, options: https.RequestOptions) => http.ClientRequest;
}

const defaultRequest = (url: URL, options: https.RequestOptions) => (url.protocol === 'https:' ? https.request(url, options) : http.request(url, options));

export async function sendWebhook(urlText: string, body: string, headers: Record<string, string>, opts: SendOptions): Promise<SendResult> {
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return { outcome: 'refused', reason: 'The URL is not valid.' };
  }
  const checked = await checkPublicUrl(url, opts);
  if ('refused' in checked) return { outcome: 'refused', reason: checked.refused };
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const lookup = pinnedLookup(checked);
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
