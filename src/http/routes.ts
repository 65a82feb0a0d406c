import express, { type Request, type Response, type NextFunction, type RequestHandler } from 'express';
import multer from 'multer';
import type { Operation, OperationResult } from '../core/operation.js';
import { runOperation, type OperationRunner } from '../core/run-operation.js';
import { authenticate } from './auth.js';
import { httpContext } from './context.js';
import { compareSpecificity, expressPath } from './route-paths.js';

const REFRESH_COOKIE_OPTIONS = { httpOnly: true, secure: true, sameSite: 'lax' as const, path: '/' };

/** Mount every operation as an Express route (DESIGN.md section 4). */
export function operationRouter(operations: readonly Operation[], runner: OperationRunner): express.Router {
  // Not strict: `/api/users/profile` and `/api/users/profile/` are the same route.
  const router = express.Router({ strict: false, caseSensitive: true });
  const routes = operations.flatMap((op) => [op.path, ...(op.aliases ?? [])].map((path) => ({ op, path: expressPath(path) })));
  // Static segments before parameters, so `/api/users/search/` is not taken for `/api/users/:username`.
  routes.sort((a, b) => compareSpecificity(a.path, b.path));
  for (const { op, path } of routes) {
    const handlers: RequestHandler[] = [authenticate];
    if (op.files?.length) handlers.push(multipartFor(op));
    handlers.push((req, res, next) => serve(op, runner, req, res).catch(next));
    router[op.method.toLowerCase() as 'get'](path, ...handlers);
  }
  return router;
}

function multipartFor(op: Operation): RequestHandler {
  const maxBytes = Math.max(...op.files!.map((f) => f.maxBytes));
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: maxBytes, files: 20 } }).fields(
    op.files!.map((f) => ({ name: f.name, maxCount: f.maxCount })),
  );
  return (req, res, next) => (req.is('multipart/form-data') ? upload(req, res, next) : next());
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
  const result = await runOperation(runner, op, input, httpContext(req, res));
  send(res, result);
}

export function send(res: Response, result: OperationResult): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  for (const cookie of result.cookies ?? []) {
    if (cookie.value === null) res.clearCookie(cookie.name, REFRESH_COOKIE_OPTIONS);
    else res.cookie(cookie.name, cookie.value, { ...REFRESH_COOKIE_OPTIONS, maxAge: (cookie.maxAgeSeconds ?? 0) * 1000 });
  }
  if (result.status === 204 || result.body === null || result.body === undefined) res.status(result.status).end();
  else res.status(result.status).json(result.body);
}

export type { NextFunction };
