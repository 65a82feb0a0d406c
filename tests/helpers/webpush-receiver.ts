import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error http_ece ships no types
import ece from 'http_ece';

/**
 * A Web Push service and its browsers, on loopback (RFC 8030, 8291, 8292), checking what a real push service and a
 * browser check, with the field's own library for the cryptography:
 * - each subscription holds a P-256 key pair and a 16-byte auth secret, as a browser does (`subscribe()` answers
 *   what `PushSubscription.toJSON()` gives);
 * - the VAPID token (`Authorization: vapid t=<JWT>, k=<key>`) is verified: ES256 over the JWT with the key `k`,
 *   `k` equal to the application server key the subscription was made with, `aud` the endpoint's origin, `exp` in
 *   the future and at most 24 h away, `sub` a mailto: or https: URL;
 * - the body is decrypted with `http_ece` (aes128gcm, the subscription's private key and auth secret): what arrives
 *   is what the browser's service worker would get;
 * - TTL, Urgency and Topic headers are recorded; each request is answered with `answer(push)` (default 201).
 */
export interface ReceivedPush {
  subscriptionId: string;
  at: number;
  ttl: number;
  urgency: string | undefined;
  topic: string | undefined;
  contentEncoding: string | undefined;
  vapid: { ok: boolean; problem?: string; sub?: string; aud?: string; exp?: number };
  /** The decrypted body, parsed (null when it could not be decrypted: `decryptError`). */
  payload: any;
  decryptError?: string;
  bytes: number;
}

export interface BrowserSubscription {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

export type Answer = number | { status: number; headers?: Record<string, string> } | 'hang';

export interface WebPushReceiver {
  origin: string;
  received: ReceivedPush[];
  /** The application server key (VAPID public key, base64url) subscriptions are made with. */
  applicationServerKey: string;
  answer: (push: ReceivedPush) => Answer;
  /** A new browser subscription (a fresh key pair and auth secret). */
  subscribe(): BrowserSubscription;
  /** Resolves once `n` pushes arrived (optionally only those `where` accepts). */
  waitFor(n: number, ms?: number, where?: (p: ReceivedPush) => boolean): Promise<ReceivedPush[]>;
  close(): Promise<void>;
}

interface Keys {
  ecdh: crypto.ECDH;
  auth: Buffer;
}

function verifyVapid(header: string | undefined, expectedKey: string, audience: string): ReceivedPush['vapid'] {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!match) return { ok: false, problem: 'no vapid Authorization header' };
  const [, token, key] = match;
  if (key !== expectedKey) return { ok: false, problem: 'k is not the application server key' };
  const [h, p, s] = token.split('.');
  const raw = Buffer.from(key, 'base64url');
  const publicKey = crypto.createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33, 65).toString('base64url') }, format: 'jwk' });
  const signed = crypto.verify('sha256', Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s ?? '', 'base64url'));
  if (!signed) return { ok: false, problem: 'bad ES256 signature' };
  const head = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  if (head.alg !== 'ES256') return { ok: false, problem: `alg ${head.alg}` };
  if (claims.aud !== audience) return { ok: false, problem: `aud ${claims.aud}, not ${audience}` };
  const now = Math.floor(Date.now() / 1000);
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600 + 60)) return { ok: false, problem: `exp ${claims.exp}` };
  if (!/^(mailto:|https:\/\/)/.test(claims.sub ?? '')) return { ok: false, problem: `sub ${claims.sub}` };
  return { ok: true, sub: claims.sub, aud: claims.aud, exp: claims.exp };
}

/**
 * `verifyEvery`: verify and decrypt one push in this many (benches: the stand-in's own CPU then stays small beside
 * the sender's); the others are counted and recorded with `payload: null` and `vapid.ok: false`, problem 'not checked'.
 */
export async function aWebPushReceiver(applicationServerKey: string, opts: { verifyEvery?: number } = {}): Promise<WebPushReceiver> {
  const verifyEvery = opts.verifyEvery ?? 1;
  let arrivals = 0;
  const subscriptions = new Map<string, Keys>();
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = (req.url ?? '').replace(/^\/push\//, '');
      const keys = subscriptions.get(id);
      if (req.method !== 'POST' || !keys) {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      const push: ReceivedPush = {
        subscriptionId: id,
        at: Date.now(),
        ttl: Number(req.headers.ttl),
        urgency: req.headers.urgency as string | undefined,
        topic: req.headers.topic as string | undefined,
        contentEncoding: req.headers['content-encoding'] as string | undefined,
        vapid: { ok: false, problem: 'not checked' },
        payload: null,
        bytes: body.length,
      };
      const check = arrivals++ % verifyEvery === 0;
      if (check) {
        push.vapid = verifyVapid(req.headers.authorization, receiver.applicationServerKey, receiver.origin);
        try {
          const plain: Buffer = ece.decrypt(body, { version: 'aes128gcm', privateKey: keys.ecdh, authSecret: keys.auth.toString('base64url') });
          push.payload = JSON.parse(plain.toString('utf8'));
        } catch (err) {
          push.decryptError = (err as Error).message;
        }
      }
      const answer = receiver.answer(push);
      receiver.received.push(push);
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      res.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const receiver: WebPushReceiver = {
    origin,
    received: [],
    applicationServerKey,
    answer: () => 201,
    subscribe() {
      const ecdh = crypto.createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = crypto.randomBytes(16);
      const id = crypto.randomUUID();
      subscriptions.set(id, { ecdh, auth });
      return { endpoint: `${origin}/push/${id}`, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
    },
    async waitFor(n, ms = 10_000, where = () => true) {
      const deadline = Date.now() + ms;
      for (;;) {
        const got = receiver.received.filter(where);
        if (got.length >= n) return got;
        if (Date.now() > deadline) throw new Error(`the push service got ${got.length} of ${n} pushes`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** The subscription id of an endpoint made by `subscribe()`. */
export const subscriptionIdOf = (endpoint: string) => endpoint.replace(/^.*\/push\//, '');
