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

/**
 * Kept-alive connections: one agent per origin and checked address, so a till answering an event a second is not
 * connected to (and TLS-handshaken with) once per event. The name is still resolved and checked before every
 * attempt; a connection is reused only to the very address this attempt checked, so a name that now resolves
 * elsewhere gets a new connection there, after its own check. Idle connections close after KEEP_ALIVE_IDLE_MS (under
 * the 5 s that Node's and most servers keep them); at most MAX_AGENTS agents are kept, the least recently used
 * closed first.
 */
export const KEEP_ALIVE_IDLE_MS = 4_000;
const MAX_AGENTS = 256;
const agents = new Map<string, http.Agent>();

function agentFor(url: URL, checked: { address: string }): http.Agent {
  const name = `${url.protocol}//${url.host}|${checked.address}`;
  let agent = agents.get(name);
  if (agent) agents.delete(name); // re-inserted last: the Map's order is the use order
  else {
    const options = { keepAlive: true, maxSockets: 8, maxFreeSockets: 8, timeout: KEEP_ALIVE_IDLE_MS, scheduling: 'lifo' as const };
    agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  }
  agents.set(name, agent);
  if (agents.size > MAX_AGENTS) {
    const [oldest, old] = agents.entries().next().value as [string, http.Agent];
    agents.delete(oldest);
    old.destroy();
  }
  return agent;
}

/** Closes every kept connection (the service's shutdown, tests). */
export function closeWebhookConnections(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

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
  const deadline = Date.now() + timeoutMs;
  const first = await attempt(url, checked, body, headers, opts, timeoutMs);
  // A kept connection the receiver closed just as this was sent (it had been idle): once more, on a new connection,
  // as Node advises for keep-alive agents. Should the receiver have read it after all, the repeat carries the same
  // webhook-id, which receivers deduplicate by (at least once, as every retry).
  if (first.staleConnection && Date.now() < deadline) return (await attempt(url, checked, body, headers, opts, deadline - Date.now(), false)).result;
  return first.result;
}

function attempt(
  url: URL,
  checked: { address: string; family: number },
  body: string,
  headers: Record<string, string>,
  opts: SendOptions,
  timeoutMs: number,
  reuse = true,
): Promise<{ result: SendResult; staleConnection?: boolean }> {
  return new Promise((resolve) => {
    let settled = false;
    // `keep`: the answer was read to its end, so the connection goes back to its agent for the next event.
    const finish = (result: SendResult, keep = false, staleConnection = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!keep) req.destroy();
      resolve({ result, staleConnection });
    };
    const req = (opts.request ?? defaultRequest)(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: pinnedLookup(checked),
      agent: reuse ? agentFor(url, checked) : false,
    });
    const timer = setTimeout(() => finish({ outcome: 'failed', reason: `No answer within ${timeoutMs / 1000} s.` }), timeoutMs);
    req.on('error', (err) => {
      const code = (err as NodeJS.ErrnoException).code;
      finish({ outcome: 'failed', reason: `${code ?? 'error'}: ${err.message}`.slice(0, 300) }, false, req.reusedSocket && code === 'ECONNRESET');
    });
    req.on('response', (res) => {
      const kept: Buffer[] = [];
      let size = 0;
      const answered = (): SendResult => ({ outcome: 'answered', statusCode: res.statusCode ?? 0, body: Buffer.concat(kept).toString('utf8') });
      res.on('data', (chunk: Buffer) => {
        if (size < KEPT_RESPONSE_BYTES) kept.push(chunk.subarray(0, KEPT_RESPONSE_BYTES - size));
        size += chunk.length;
        // Enough kept: the rest of a large answer is not read (and its connection not kept).
        if (size >= KEPT_RESPONSE_BYTES) finish(answered());
      });
      res.on('end', () => finish(answered(), true));
      res.on('error', () => finish(answered()));
    });
    req.end(body);
  });
}
