import crypto from 'node:crypto';
import { io as ioClient } from 'socket.io-client';
import type { TestApp } from './test-app.js';
import { unique } from './test-app.js';
import type { TestUser } from '../builders/users.js';

/**
 * A client at its own network address. Rate limits count per address (the app trusts
 * X-Forwarded-For, as it does behind nginx), so tests that call often, or count throttling,
 * each use their own address and do not eat into each other's budget.
 */
export interface Caller {
  ip: string;
  rest(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; cookies?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Record<string, any> }>;
  /** An operation over a fresh socket from the same address: the ack's `{status, body}`. */
  emit(event: string, input?: unknown, opts?: { token?: string }): Promise<{ status: number; body: any }>;
}

export const anIp = () => `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;

export function callerFrom(app: TestApp, ip: string = anIp()): Caller {
  return {
    ip,
    async rest(method, path, opts = {}) {
      let req = app.http()[method.toLowerCase() as 'get'](path).set('X-Forwarded-For', ip);
      if (opts.token) req = req.set('Authorization', `Bearer ${opts.token}`);
      if (opts.cookies) req = req.set('Cookie', Object.entries(opts.cookies).map(([k, v]) => `${k}=${v}`).join('; '));
      if (opts.body !== undefined) req = req.send(opts.body as object);
      const res = await req;
      return { status: res.status, body: res.body, headers: res.headers as Record<string, any> };
    },
    async emit(event, input = {}, opts = {}) {
      const socket = ioClient(app.url, {
        path: '/socket.io/',
        transports: ['websocket'],
        extraHeaders: { 'x-forwarded-for': ip },
        auth: opts.token ? { token: opts.token } : {},
        reconnection: false,
        forceNew: true,
      });
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        return await socket.timeout(10000).emitWithAck(event, input);
      } finally {
        socket.close();
      }
    },
  };
}

/** Like the `aUser` builder, but registered from the caller's address. */
export async function aUserFrom(caller: Caller, overrides: Record<string, unknown> = {}): Promise<TestUser> {
  const username = (overrides.username as string) ?? unique('user');
  const input = { email: `${username}@example.test`, username, display_name: `User ${username}`, password: 'correct-horse-battery', ...overrides };
  const res = await caller.rest('POST', '/api/auth/register/', { body: input });
  if (res.status !== 201) throw new Error(`aUserFrom: register answered ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.user.id, username, email: input.email as string, password: input.password as string, token: res.body.access_token, refresh: res.body.refresh_token, body: res.body.user };
}

/** The `refresh_token` cookie a response sets, raw (`refresh_token=...; Max-Age=...; HttpOnly; ...`). */
export function refreshCookieHeader(headers: Record<string, any>): string | undefined {
  const setCookie: string[] = headers['set-cookie'] ?? [];
  return setCookie.find((c) => c.startsWith('refresh_token='));
}

/** The refresh cookie carries `token` with the contract's attributes (HttpOnly, Secure, Lax, 30 days). */
export function expectRefreshCookie(headers: Record<string, any>, token: string): void {
  const cookie = refreshCookieHeader(headers)!;
  expect(cookie).toContain(`refresh_token=${token};`);
  expect(cookie).toMatch(/HttpOnly/i);
  expect(cookie).toMatch(/Secure/i);
  expect(cookie).toMatch(/SameSite=Lax/i);
  expect(cookie).toMatch(/Max-Age=2592000\b/i);
}

/**
 * A body with the values that legitimately differ per call (fresh tokens, ids, timestamps) replaced by
 * placeholders, so REST and socket answers can be compared with toEqual.
 */
export function normalised(body: unknown, alsoReplace: string[] = []): unknown {
  const volatile = new Set(['access_token', 'refresh_token', 'id', 'created_at', 'updated_at']);
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, volatile.has(k) && x !== null ? `<${k}>` : walk(x)]));
    if (typeof v === 'string') return alsoReplace.reduce((s, r, i) => s.split(r).join(`<value${i}>`), v);
    return v;
  };
  return walk(body);
}
