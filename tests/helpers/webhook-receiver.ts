import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook receiver on loopback, as a shop's till would run one: it verifies each request with the
 * `standardwebhooks` library (never our own code) against the secrets it is given, and answers what `answer` says.
 */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: any;
  raw: string;
  /** Which of the receiver's secrets verified it (-1: none). */
  verifiedBy: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  secrets: string[];
  /** The status to answer the next request with (default 200); 'hang' never answers. */
  answer: (r: Received) => number | 'hang';
  /** Resolves once `n` requests arrived. */
  waitFor(n: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function aReceiver(): Promise<Receiver> {
  const hanging: http.ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    secrets: [],
    answer: () => 200,
    async waitFor(n, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (receiver.received.length < n) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${receiver.received.length} of ${n} requests`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return receiver.received;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
      const verifiedBy = receiver.secrets.findIndex((secret) => {
        try {
          new Webhook(secret).verify(raw, headers);
          return true;
        } catch {
          return false;
        }
      });
      const received: Received = { id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'], body: JSON.parse(raw), raw, verifiedBy };
      receiver.received.push(received);
      const status = receiver.answer(received);
      if (status === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status >= 300 ? 'x'.repeat(5000) : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
