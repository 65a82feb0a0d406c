import type { ErrorRequestHandler, RequestHandler } from 'express';
import multer from 'multer';
import { INTERNAL_ERROR_BODY, MESSAGES } from '../core/errors.js';

/** Unknown routes: the contract's 404 body. */
export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json({ detail: MESSAGES.notFound });
};

/** Errors raised before an operation runs: body parsing, upload limits. Never a bare 500 page. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (err instanceof multer.MulterError) {
    if (err.code === 'LIMIT_FILE_SIZE') return void res.status(413).json({ [err.field ?? 'file']: ['The file is too large.'] });
    return void res.status(400).json({ [err.field ?? 'file']: [err.message] });
  }
  const type = (err as { type?: string }).type;
  const status = (err as { status?: number }).status;
  if (type === 'entity.too.large' || status === 413) return void res.status(413).json({ detail: 'Request body is too large.' });
  if (type === 'entity.parse.failed') return void res.status(400).json({ detail: `JSON parse error - ${(err as Error).message}` });
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return void res.status(415).json({ detail: (err as Error).message });
  if (status && status >= 400 && status < 500) return void res.status(status).json({ detail: (err as Error).message });
  req.log?.error({ err }, 'unhandled error');
  res.status(500).json(INTERNAL_ERROR_BODY);
};
