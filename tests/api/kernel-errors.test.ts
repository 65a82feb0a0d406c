import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { io as ioClient } from 'socket.io-client';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { operations } from '../../src/registry.js';
import { defineOperation, ok, type Operation } from '../../src/core/operation.js';
import { runOperation, type OperationRunner } from '../../src/core/run-operation.js';
import { RateLimits } from '../../src/core/rate-limit.js';
import { fieldError } from '../../src/core/errors.js';
import type { RequestContext } from '../../src/core/context.js';
import { platform } from '../../src/platform/index.js';

/**
 * How the kernel renders failures. Throwaway operations (served next to the real ones) stand in for a
 * handler with a bug and for an operation with optional authentication.
 */
const boomOp = defineOperation({
  name: 'test.boom',
  method: 'POST',
  path: '/api/test/boom/',
  auth: 'public',
  summary: 'Fails with an unexpected error',
  tags: ['test'],
  input: z.object({}),
  handler: async () => {
    throw new TypeError("Cannot read properties of undefined (reading 'secret internals')");
  },
});

const whoAmIOp = defineOperation({
  name: 'test.who_am_i',
  method: 'GET',
  path: '/api/test/who-am-i/',
  auth: 'optional',
  summary: 'Names the caller, or null for an anonymous one',
  tags: ['test'],
  input: z.object({}),
  handler: async (_input, ctx) => ok({ username: ctx.user?.username ?? null }),
});

const limitedOp = defineOperation({
  name: 'test.limited',
  method: 'POST',
  path: '/api/test/limited/',
  auth: 'public',
  summary: 'Allows two calls a minute per client address',
  tags: ['test'],
  rateLimits: [{ name: 'ip', points: 2, durationSeconds: 60, key: 'ip' }],
  input: z.object({}),
  handler: async () => ok({ ok: true }),
});

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({}, { operations: [...operations, boomOp, whoAmIOp, limitedOp] });
});
afterAll(async () => {
  await app.stop();
});

describe('an unexpected error in a handler', () => {
  test('when a handler throws, then 500 {detail: "A server error occurred."} on both transports, with no internals', async () => {
    const rest = await app.rest('POST', '/api/test/boom/', { body: {} });
    expect(rest).toMatchObject({ status: 500, body: { detail: 'A server error occurred.' } });
    expect(JSON.stringify(rest.body)).not.toContain('secret internals');
    const socket = await app.emit('test.boom', {});
    expect(socket).toEqual({ status: rest.status, body: rest.body });
  });

  test('when a handler has thrown, then the service keeps serving', async () => {
    await app.rest('POST', '/api/test/boom/', { body: {} });
    expect(await app.rest('GET', '/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });
});

describe('runOperation', () => {
  const ctx: RequestContext = { transport: 'http', requestId: 'r1', user: null, authError: false, ip: '203.0.113.9', userAgent: 'jest', baseUrl: 'http://x', cookies: {} };
  const runnerWith = (seen: unknown[]): OperationRunner => ({ rateLimits: new RateLimits(null, 'kernel-errors'), onUnexpectedError: (err) => seen.push(err) });
  const throwing = (err: unknown): Operation =>
    defineOperation({
      name: 'test.throwing',
      method: 'POST',
      path: '/api/test/throwing/',
      auth: 'public',
      summary: 'Throws what it is given',
      tags: [],
      input: z.object({}),
      handler: async () => {
        throw err;
      },
    });

  test('when a handler throws an unexpected error, then 500 and the error is reported to onUnexpectedError', async () => {
    const seen: unknown[] = [];
    const bug = new Error('bug');
    const result = await runOperation(runnerWith(seen), throwing(bug), {}, ctx);
    expect(result).toEqual({ status: 500, body: { detail: 'A server error occurred.' } });
    expect(seen).toEqual([bug]);
  });

  test('when a handler throws an AppError, then its status and body are answered and nothing is reported', async () => {
    const seen: unknown[] = [];
    const result = await runOperation(runnerWith(seen), throwing(fieldError('slug', 'This store identifier is already taken.')), {}, ctx);
    expect(result).toMatchObject({ status: 400, body: { slug: ['This store identifier is already taken.'] } });
    expect(seen).toEqual([]);
  });

  test('when the database refuses a value as malformed, then 400 {detail: "Invalid value."} rather than 500', async () => {
    const seen: unknown[] = [];
    const dbError = Object.assign(new Error('invalid input syntax for type uuid'), { code: '22P02' });
    const result = await runOperation(runnerWith(seen), throwing(dbError), {}, ctx);
    expect(result).toMatchObject({ status: 400, body: { detail: 'Invalid value.' } });
    expect(seen).toEqual([]);
  });

  test('when an operation has optional auth and the token did not verify, then 401 before the handler runs', async () => {
    let ran = false;
    const op: Operation = {
      ...whoAmIOp,
      handler: async () => {
        ran = true;
        return ok({});
      },
    };
    const result = await runOperation(runnerWith([]), op, {}, { ...ctx, authError: true });
    expect(result).toMatchObject({ status: 401, body: { detail: 'Given token not valid for any token type' } });
    expect(ran).toBe(false);
  });
});

describe('optional authentication over REST', () => {
  test('when no token is sent, then the caller is anonymous', async () => {
    expect(await app.rest('GET', '/api/test/who-am-i/')).toMatchObject({ status: 200, body: { username: null } });
  });

  test('when a valid token is sent, then the caller is known', async () => {
    const alice = await aUser(app);
    expect(await app.rest('GET', '/api/test/who-am-i/', { token: alice.token })).toMatchObject({ status: 200, body: { username: alice.username } });
  });

  test.each([
    ['a malformed token', () => 'not.a.jwt'],
    ['a token signed with another secret', () => jwt.sign({ type: 'access', jti: 'x' }, 'another-secret', { subject: '00000000-0000-4000-8000-000000000000', expiresIn: 60 })],
    ['an expired token', () => jwt.sign({ type: 'access', jti: 'x', exp: Math.floor(Date.now() / 1000) - 10 }, platform.jwtSecret, { subject: '00000000-0000-4000-8000-000000000000' })],
  ])('when %s is sent, then 401 "Given token not valid for any token type"', async (_what, token) => {
    const res = await app.rest('GET', '/api/test/who-am-i/', { token: token() });
    expect(res).toMatchObject({ status: 401, body: { detail: 'Given token not valid for any token type' } });
  });

  test('when a refresh token is sent as the bearer token, then 401 "Given token not valid for any token type"', async () => {
    const bob = await aUser(app);
    const res = await app.rest('GET', '/api/test/who-am-i/', { token: bob.refresh });
    expect(res).toMatchObject({ status: 401, body: { detail: 'Given token not valid for any token type' } });
  });

  test('when an invalid token is sent to a public operation, then it is served as for anyone', async () => {
    const res = await app.rest('GET', '/health', { token: 'not.a.jwt' });
    expect(res.status).toBe(200);
  });
});

describe('rate limits', () => {
  const fromAddress = (ip: string) => app.http().post('/api/test/limited/').set('X-Forwarded-For', ip).send({});
  let last = 0;
  const anAddress = () => `198.51.100.${++last}`;

  test('when a client spends its budget, then 429 with the contract text and Retry-After', async () => {
    const ip = anAddress();
    expect((await fromAddress(ip)).status).toBe(200);
    expect((await fromAddress(ip)).status).toBe(200);
    const refused = await fromAddress(ip);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds?\.$/) });
    const seconds = Number(refused.body.detail.match(/in (\d+) second/)[1]);
    expect(refused.headers['retry-after']).toBe(String(seconds));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
  });

  test('when the budget is spent over REST, then the socket from the same address is refused with the same body', async () => {
    const ip = anAddress();
    await fromAddress(ip);
    await fromAddress(ip);
    const socket = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const s = ioClient(app.url, { path: '/socket.io/', transports: ['websocket'], extraHeaders: { 'x-forwarded-for': ip }, reconnection: false, forceNew: true });
      s.once('connect_error', reject);
      s.once('connect', () => s.timeout(5000).emitWithAck('test.limited', {}).then(resolve, reject).finally(() => s.close()));
    });
    expect(socket.status).toBe(429);
    expect(socket.body).toEqual({ detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds?\.$/) });
  });

  test('when another client address calls, then it has its own budget', async () => {
    const ip = anAddress();
    await fromAddress(ip);
    await fromAddress(ip);
    expect((await fromAddress(anAddress())).status).toBe(200);
  });
});
