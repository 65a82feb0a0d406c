import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import type { RequestContext } from '../core/context.js';
import { platform } from '../platform/index.js';
import type { AuthResult } from './auth.js';

export function requestBaseUrl(req: Request): string {
  return platform.config.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host')}`;
}

export function httpContext(req: Request, res: Response): RequestContext {
  const auth = (res.locals.auth as AuthResult | undefined) ?? { user: null, authError: false };
  return {
    transport: 'http',
    requestId: String(req.id ?? crypto.randomUUID()),
    user: auth.user,
    authError: auth.authError,
    ip: req.ip ?? '',
    userAgent: req.get('user-agent') ?? '',
    baseUrl: requestBaseUrl(req),
    cookies: (req.cookies as Record<string, string> | undefined) ?? {},
  };
}
