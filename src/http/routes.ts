import express, { type Request, type Response, type NextFunction, type RequestHandler } from 'express';
import type { Operation, OperationResult } from '../core/operation.js';
import { admitOperation, runAdmittedOperation, type OperationRunner } from '../core/run-operation.js';
import type { RequestContext } from '../core/context.js';
import { authenticate } from './auth.js';
import { httpContext } from './context.js';
import { multipartFor } from './multipart.js';
import { compareSpecificity, expressPath } from './route-paths.js';

const REFRESH_COOKIE_OPTIONS = { httpOnly: true, secure: true, sameSite: 'lax' as const, path: '/' };

export interface BodyLimits {
  /** Largest JSON or form-encoded body (an Express size string, e.g. `1mb`). */
  json: string;
}

/**
 * Mount every operation as an Express route (DESIGN.md section 4): authenticate → admit (auth rule and
 * the rate limits keyed by the caller) → read the body → run. The body is read last, so a caller the
 * operation refuses costs no parsing and no memory, however large the body it announces.
 */
export function operationRouter(operations: readonly Operation[], runner: OperationRunner, limits: BodyLimits): express.Router {
  const json = express.json({ limit: limits.json });
  const form = express.urlencoded({ extended: true, limit: limits.json });
  // Most calls (every GET) carry no body: the parsers are not entered at all then (what they would conclude
  // themselves, after some work per request). One handler for both, so the route has one layer fewer.
  const readBody: RequestHandler = (req, res, next) => {
    if (req.headers['transfer-encoding'] === undefined && req.headers['content-length'] === undefined) return next();
    json(req, res, (err?: unknown) => (err ? next(err) : form(req, res, next)));
  };
  // Not strict: `/api/users/profile` and `/api/users/profile/` are the same route.
  const router = express.Router({ strict: false, caseSensitive: true });
  const routes = operations.map((op) => ({ op, path: expressPath(op.path) }));
  // Static segments before parameters, so `/api/users/search/` is not taken for `/api/users/:username`.
  routes.sort((a, b) => compareSpecificity(a.path, b.path));
  for (const { op, path } of routes) {
    const handlers: RequestHandler[] = [authenticate, (req, res, next) => admit(op, runner, req, res, next).catch(next), readBody];
    if (op.files?.length) handlers.push(multipartFor(op));
    handlers.push((req, res, next) => serve(op, runner, req, res).catch(next));
    router[op.method.toLowerCase() as 'get'](path, ...handlers);
  }
  return router;
}

async function admit(op: Operation, runner: OperationRunner, req: Request, res: Response, next: NextFunction): Promise<void> {
  res.locals.operationStartedAt = performance.now();
  const ctx = httpContext(req, res);
  // Built once per request: serve() takes the same context (the caller, address and base URL do not change).
  res.locals.operationContext = ctx;
  const refusal = await admitOperation(runner, op, ctx);
  if (!refusal) return next();
  answered(runner, op, ctx, res, refusal.status);
  // The body is left unread; closing the connection spares the client sending the rest of it.
  if (!req.complete) res.setHeader('Connection', 'close');
  send(res, refusal);
}

async function serve(op: Operation, runner: OperationRunner, req: Request, res: Response): Promise<void> {
  const input: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
  if (req.body && typeof req.body === 'object' && !Array.isArray(req.body)) Object.assign(input, req.body);
  const files = req.files as Record<string, Express.Multer.File[]> | undefined;
  for (const field of op.files ?? []) {
    const got = files?.[field.name];
    if (got?.length) input[field.name] = field.maxCount === 1 ? got[0] : got;
  }
  Object.assign(input, req.params);
  const ctx = (res.locals.operationContext as RequestContext | undefined) ?? httpContext(req, res);
  const result = await runAdmittedOperation(runner, op, input, ctx);
  answered(runner, op, ctx, res, result.status);
  send(res, result);
}

function answered(runner: OperationRunner, op: Operation, ctx: RequestContext, res: Response, status: number): void {
  runner.onAnswered?.(op, ctx, status, (performance.now() - (res.locals.operationStartedAt as number)) / 1000);
}

export function send(res: Response, result: OperationResult): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  for (const cookie of result.cookies ?? []) {
    if (cookie.value === null) res.clearCookie(cookie.name, REFRESH_COOKIE_OPTIONS);
    else res.cookie(cookie.name, cookie.value, { ...REFRESH_COOKIE_OPTIONS, maxAge: (cookie.maxAgeSeconds ?? 0) * 1000 });
  }
  if (result.status === 204 || result.body === null || result.body === undefined) res.status(result.status).end();
  // A body in another media type (Operation.produces) comes as text with its Content-Type among the headers.
  else if (typeof result.body === 'string' && result.headers?.['Content-Type']) res.status(result.status).send(result.body);
  else res.status(result.status).json(result.body);
}

export type { NextFunction };
