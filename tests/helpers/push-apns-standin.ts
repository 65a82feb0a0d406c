import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

/**
 * APNs on loopback, as Apple runs it: HTTP/2 only, over TLS with a certificate from a test CA made at start with
 * `openssl` (pass `caFile` as APNS_CA_FILE, `origin` as APNS_ENDPOINT). For each `POST /3/device/<token>` it checks
 * what Apple checks, answering Apple's status and `{reason}`:
 * - `authorization: bearer <JWT>` verified with `jsonwebtoken` (not our code) against the public half of the `.p8`
 *   key it wrote (`keyFile`): ES256, header kid = `keyId`, iss = `teamId`; missing 403 MissingProviderToken, bad 403
 *   InvalidProviderToken, iat older than an hour 403 ExpiredProviderToken (or older than `expireTokensIssuedBefore`);
 * - `apns-topic` = `topic` (else 400 MissingTopic / 400 TopicDisallowed), `apns-push-type` one of Apple's (else 400
 *   InvalidPushType), `alert` needing `aps.alert`; `apns-priority` 5 or 10, `apns-expiration` a number,
 *   `apns-collapse-id` at most 64 bytes (else 400 BadPriority, BadExpirationDate, BadCollapseId);
 * - the token 64 hex digits (else 400 BadDeviceToken); the body JSON with an `aps` object, at most 4,096 bytes
 *   (else 400 PayloadEmpty / 413 PayloadTooLarge);
 * - a token in `unregistered`: 410 Unregistered with its timestamp.
 * `nextAnswers` queues forced answers (429/503 with Retry-After...). Every accepted push is kept in `pushes`.
 */
export interface ApnsPush {
  deviceToken: string;
  headers: http2.IncomingHttpHeaders;
  body: any;
  providerToken: string;
  /** The TLS connection it came on (to count sessions). */
  connection: number;
}

export interface ApnsStandin {
  origin: string;
  caFile: string;
  keyFile: string;
  keyId: string;
  teamId: string;
  topic: string;
  pushes: ApnsPush[];
  /** Answers other than 200, with their reason. */
  refused: { status: number; reason: string }[];
  unregistered: Set<string>;
  nextAnswers: { status: number; reason: string; retryAfter?: string }[];
  /** Provider tokens issued (iat, seconds) before this are refused with ExpiredProviderToken. */
  expireTokensIssuedBefore: number;
  /** TLS connections opened so far. */
  connections(): number;
  waitForPushes(n: number, ms?: number): Promise<ApnsPush[]>;
  close(): Promise<void>;
}

const PUSH_TYPES = ['alert', 'background', 'location', 'voip', 'complication', 'fileprovider', 'mdm', 'liveactivity', 'pushtotalk'];

/** A test CA and a server certificate it signed for localhost and 127.0.0.1 (PEM files in `dir`). */
function testCertificates(dir: string) {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  run('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Hyperlocal test CA');
  run('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  fs.writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf');
  return { ca: path.join(dir, 'ca.pem'), key: fs.readFileSync(path.join(dir, 'server.key')), cert: fs.readFileSync(path.join(dir, 'server.pem')) };
}

/** `like`: a second APNs (the sandbox) that knows the same key, team and topic, its CA file holding both CAs. */
export async function startApnsStandin(opts: { topic?: string; teamId?: string; keyId?: string; like?: ApnsStandin; maxConcurrentStreams?: number } = {}): Promise<ApnsStandin> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apns-standin-'));
  const certificates = testCertificates(dir);
  if (opts.like) fs.appendFileSync(certificates.ca, fs.readFileSync(opts.like.caFile));
  const privateKey = opts.like ? crypto.createPrivateKey(fs.readFileSync(opts.like.keyFile)) : crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const publicKey = crypto.createPublicKey(privateKey);
  const keyId = opts.like?.keyId ?? opts.keyId ?? 'ABC123DEFG';
  const keyFile = path.join(dir, `AuthKey_${keyId}.p8`);
  fs.writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  let connectionCount = 0;

  const standin: ApnsStandin = {
    origin: '',
    caFile: certificates.ca,
    keyFile,
    keyId,
    teamId: opts.like?.teamId ?? opts.teamId ?? 'TEAM123456',
    topic: opts.like?.topic ?? opts.topic ?? 'org.hyperlocal.app',
    pushes: [],
    refused: [],
    unregistered: new Set(),
    nextAnswers: [],
    expireTokensIssuedBefore: 0,
    connections: () => connectionCount,
    async waitForPushes(n, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (standin.pushes.length < n) {
        if (Date.now() > deadline) throw new Error(`the APNs stand-in got ${standin.pushes.length} of ${n} pushes`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return standin.pushes;
    },
    close: async () => {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };

  const sessions = new Set<http2.ServerHttp2Session>();
  const server = http2.createSecureServer({
    key: certificates.key,
    cert: certificates.cert,
    allowHTTP1: false,
    // APNs announces its own limit of streams in flight on one connection (low at first, raised once the token is known).
    settings: { maxConcurrentStreams: opts.maxConcurrentStreams ?? 1000 },
  });
  const numbers = new WeakMap<object, number>();
  server.on('session', (session) => {
    numbers.set(session, ++connectionCount);
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  server.on('stream', (stream, headers) => {
    const connection = numbers.get(stream.session as object) ?? 0;
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const apnsId = String(headers['apns-id'] ?? crypto.randomUUID()).toUpperCase();
      const answer = (status: number, reason?: string, extra: Record<string, unknown> = {}, responseHeaders: Record<string, string> = {}) => {
        if (status !== 200) standin.refused.push({ status, reason: reason ?? '' });
        stream.respond({ ':status': status, 'apns-id': apnsId, ...(reason ? { 'content-type': 'application/json' } : {}), ...responseHeaders });
        stream.end(reason ? JSON.stringify({ reason, ...extra }) : undefined);
      };
      const device = /^\/3\/device\/([^/?]+)$/.exec(String(headers[':path']));
      if (headers[':method'] !== 'POST') return answer(405, 'MethodNotAllowed');
      if (!device) return answer(404, 'BadPath');
      const deviceToken = device[1];

      const auth = /^bearer (.+)$/i.exec(String(headers.authorization ?? ''))?.[1];
      if (!auth) return answer(403, 'MissingProviderToken');
      let claims: jwt.JwtPayload;
      try {
        const decoded = jwt.verify(auth, publicKey, { algorithms: ['ES256'], issuer: standin.teamId, complete: true, ignoreExpiration: true });
        if (decoded.header.kid !== keyId) throw new Error(`kid ${decoded.header.kid}`);
        claims = decoded.payload as jwt.JwtPayload;
      } catch {
        return answer(403, 'InvalidProviderToken');
      }
      const now = Math.floor(Date.now() / 1000);
      if (typeof claims.iat !== 'number' || claims.iat > now + 60) return answer(403, 'InvalidProviderToken');
      if (now - claims.iat > 3600 || claims.iat < standin.expireTokensIssuedBefore) return answer(403, 'ExpiredProviderToken');

      const forced = standin.nextAnswers.shift();
      if (forced) return answer(forced.status, forced.reason, {}, forced.retryAfter ? { 'retry-after': forced.retryAfter } : {});

      if (!headers['apns-topic']) return answer(400, 'MissingTopic');
      if (headers['apns-topic'] !== standin.topic) return answer(400, 'TopicDisallowed');
      const pushType = String(headers['apns-push-type'] ?? '');
      if (!PUSH_TYPES.includes(pushType)) return answer(400, 'InvalidPushType');
      if (headers['apns-priority'] !== undefined && !['5', '10', '1'].includes(String(headers['apns-priority']))) return answer(400, 'BadPriority');
      if (headers['apns-expiration'] !== undefined && !/^\d+$/.test(String(headers['apns-expiration']))) return answer(400, 'BadExpirationDate');
      if (headers['apns-collapse-id'] !== undefined && Buffer.byteLength(String(headers['apns-collapse-id'])) > 64) return answer(400, 'BadCollapseId');
      if (!/^[0-9a-f]{64}$/i.test(deviceToken)) return answer(400, 'BadDeviceToken');
      const raw = Buffer.concat(chunks);
      if (raw.length === 0) return answer(400, 'PayloadEmpty');
      if (raw.length > 4096) return answer(413, 'PayloadTooLarge');
      let body: any;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return answer(400, 'BadMessageId');
      }
      if (!body || typeof body.aps !== 'object') return answer(400, 'PayloadEmpty');
      if (pushType === 'alert' && !body.aps.alert) return answer(400, 'PayloadEmpty');
      if (standin.unregistered.has(deviceToken)) return answer(410, 'Unregistered', { timestamp: Date.now() });
      standin.pushes.push({ deviceToken, headers, body, providerToken: auth, connection });
      answer(200);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  standin.origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standin;
}
