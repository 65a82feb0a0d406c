import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

/**
 * FCM on loopback, both halves of what Google runs, checking what they check:
 * - the OAuth2 token endpoint (the service account's `token_uri`): an RFC 7523 `jwt-bearer` grant whose assertion is
 *   verified with `jsonwebtoken` (not our code) against the service account's public key: RS256, iss = client_email,
 *   aud = token_uri, scope holding firebase.messaging, iat not in the future, exp after now and at most an hour after
 *   iat. It answers an opaque access token for `tokenLifetimeSeconds`.
 * - `POST /v1/projects/<project_id>/messages:send`: the bearer must be a token it issued, unexpired and not revoked
 *   (else 401 UNAUTHENTICATED); the project must be the account's (else 403 PERMISSION_DENIED); the body must be a
 *   v1 message: exactly one of token/topic/condition, `data` values all strings with no reserved key, `android.ttl`
 *   as "<seconds>s", `android.priority` NORMAL or HIGH, `collapse_key` a string, at most 4,096 bytes of data and
 *   notification together
 *   (else 400 INVALID_ARGUMENT). A token marked `unregistered` is answered 404 UNREGISTERED; `nextAnswers` queues
 *   failures (429/503 with Retry-After...).
 * `serviceAccountFile` is the key file to pass as FCM_SERVICE_ACCOUNT, `endpoint` the FCM_ENDPOINT.
 */
export interface FcmMessageReceived {
  token: string;
  message: any;
  bearer: string;
}

export interface FcmStandin {
  endpoint: string;
  tokenUri: string;
  projectId: string;
  clientEmail: string;
  serviceAccountFile: string;
  messages: FcmMessageReceived[];
  /** Every assertion exchanged (decoded claims), and every refused one with why. */
  exchanges: { claims: jwt.JwtPayload }[];
  refusedAssertions: string[];
  /** 400 answers to messages it found malformed, with why (a test expects none). */
  refusedMessages: string[];
  /** Registration tokens answered 404 UNREGISTERED. */
  unregistered: Set<string>;
  /** Answers for the next messages:send requests, in order, before any check of the message. */
  nextAnswers: { status: number; retryAfter?: string; errorStatus?: string; errorCode?: string }[];
  tokenLifetimeSeconds: number;
  /** Every access token issued so far stops working (answered 401). */
  revokeAccessTokens(): void;
  waitForMessages(n: number, ms?: number): Promise<FcmMessageReceived[]>;
  close(): Promise<void>;
}

const RESERVED_DATA_KEYS = ['from', 'notification', 'message_type'];

export async function startFcmStandin(opts: { projectId?: string } = {}): Promise<FcmStandin> {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const projectId = opts.projectId ?? 'hyperlocal-test';
  const clientEmail = `push@${projectId}.iam.gserviceaccount.com`;
  const issued = new Map<string, number>();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fcm-standin-'));
  const serviceAccountFile = path.join(dir, 'service-account.json');

  const standin: FcmStandin = {
    endpoint: '',
    tokenUri: '',
    projectId,
    clientEmail,
    serviceAccountFile,
    messages: [],
    exchanges: [],
    refusedAssertions: [],
    refusedMessages: [],
    unregistered: new Set(),
    nextAnswers: [],
    tokenLifetimeSeconds: 3600,
    revokeAccessTokens: () => issued.clear(),
    async waitForMessages(n, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (standin.messages.length < n) {
        if (Date.now() > deadline) throw new Error(`the FCM stand-in got ${standin.messages.length} of ${n} messages`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return standin.messages;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
    res.end(JSON.stringify(body));
  };
  const googleError = (res: http.ServerResponse, code: number, status: string, message: string, errorCode?: string, extra: object[] = [], headers?: Record<string, string>) =>
    json(
      res,
      code,
      {
        error: {
          code,
          message,
          status,
          details: [...(errorCode ? [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] : []), ...extra],
        },
      },
      headers,
    );

  function tokenEndpoint(req: http.IncomingMessage, raw: string, res: http.ServerResponse) {
    const refuse = (why: string) => {
      standin.refusedAssertions.push(why);
      json(res, 400, { error: 'invalid_grant', error_description: why });
    };
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return refuse('not a form');
    const form = new URLSearchParams(raw);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse(`grant_type ${form.get('grant_type')}`);
    let claims: jwt.JwtPayload;
    try {
      claims = jwt.verify(form.get('assertion') ?? '', publicKey, { algorithms: ['RS256'], audience: standin.tokenUri, issuer: clientEmail }) as jwt.JwtPayload;
    } catch (err) {
      return refuse(`assertion: ${(err as Error).message}`);
    }
    const now = Math.floor(Date.now() / 1000);
    if (!String(claims.scope ?? '').split(' ').includes('https://www.googleapis.com/auth/firebase.messaging')) return refuse(`scope ${claims.scope}`);
    if (typeof claims.iat !== 'number' || claims.iat > now + 60) return refuse('iat in the future');
    if (typeof claims.exp !== 'number' || claims.exp - claims.iat > 3600) return refuse('exp more than an hour after iat');
    standin.exchanges.push({ claims });
    const accessToken = `ya29.${crypto.randomBytes(24).toString('base64url')}`;
    issued.set(accessToken, Date.now() + standin.tokenLifetimeSeconds * 1000);
    json(res, 200, { access_token: accessToken, expires_in: standin.tokenLifetimeSeconds, token_type: 'Bearer' });
  }

  function messagesSend(req: http.IncomingMessage, raw: string, res: http.ServerResponse, project: string) {
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
    const expiresAt = issued.get(bearer);
    if (!expiresAt || expiresAt < Date.now()) {
      return googleError(res, 401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.');
    }
    if (project !== projectId) return googleError(res, 403, 'PERMISSION_DENIED', `Permission denied on project ${project}`, 'SENDER_ID_MISMATCH');
    const forced = standin.nextAnswers.shift();
    if (forced) {
      return googleError(res, forced.status, forced.errorStatus ?? (forced.status === 429 ? 'RESOURCE_EXHAUSTED' : 'UNAVAILABLE'), 'forced by the test', forced.errorCode ?? (forced.status === 429 ? 'QUOTA_EXCEEDED' : 'UNAVAILABLE'), [], forced.retryAfter ? { 'retry-after': forced.retryAfter } : {});
    }
    const invalid = (why: string, field = 'message') => {
      standin.refusedMessages.push(why);
      googleError(res, 400, 'INVALID_ARGUMENT', why, 'INVALID_ARGUMENT', [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description: why }] }]);
    };
    if (!String(req.headers['content-type']).startsWith('application/json')) return invalid('not JSON');
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return invalid('Invalid JSON payload received.');
    }
    const message = body?.message;
    if (!message || typeof message !== 'object') return invalid('no message');
    const targets = ['token', 'topic', 'condition'].filter((k) => message[k] !== undefined);
    if (targets.length !== 1) return invalid('exactly one of token, topic, condition');
    if (typeof message.token !== 'string' || !/^[\w:-]{1,4096}$/.test(message.token)) return invalid('The registration token is not a valid FCM registration token', 'message.token');
    if (message.data !== undefined) {
      if (typeof message.data !== 'object') return invalid('data is not a map', 'message.data');
      for (const [key, value] of Object.entries(message.data)) {
        if (typeof value !== 'string') return invalid(`data.${key} is not a string`, 'message.data');
        if (RESERVED_DATA_KEYS.includes(key) || /^(google|gcm)/.test(key)) return invalid(`data.${key} is a reserved key`, 'message.data');
      }
    }
    // FCM's 4 KB is the data and the notification together.
    if (Buffer.byteLength(JSON.stringify({ data: message.data ?? {}, notification: message.notification ?? {} })) > 4096) return invalid('Message is too big', 'message');
    const android = message.android;
    if (android !== undefined) {
      if (android.ttl !== undefined && !/^\d+(\.\d{1,9})?s$/.test(android.ttl)) return invalid(`Invalid value at 'message.android.ttl' (${android.ttl})`, 'message.android.ttl');
      if (android.priority !== undefined && !['NORMAL', 'HIGH', 'normal', 'high'].includes(android.priority)) return invalid(`Invalid value at 'message.android.priority'`, 'message.android.priority');
      if (android.collapse_key !== undefined && typeof android.collapse_key !== 'string') return invalid('collapse_key', 'message.android.collapse_key');
    }
    if (standin.unregistered.has(message.token)) return googleError(res, 404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED');
    standin.messages.push({ token: message.token, message, bearer });
    json(res, 200, { name: `projects/${projectId}/messages/${crypto.randomUUID()}` });
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://standin');
      if (req.method === 'POST' && url.pathname === '/token') return tokenEndpoint(req, raw, res);
      const send = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(url.pathname);
      if (req.method === 'POST' && send) return messagesSend(req, raw, res, decodeURIComponent(send[1]));
      json(res, 404, { error: { code: 404, status: 'NOT_FOUND', message: 'no such path' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  standin.endpoint = `http://127.0.0.1:${port}`;
  standin.tokenUri = `${standin.endpoint}/token`;
  fs.writeFileSync(
    serviceAccountFile,
    JSON.stringify({
      type: 'service_account',
      project_id: projectId,
      private_key_id: crypto.randomBytes(20).toString('hex'),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: clientEmail,
      client_id: '1234567890',
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: standin.tokenUri,
    }),
    { mode: 0o600 },
  );
  return standin;
}
