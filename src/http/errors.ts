import type { ErrorRequestHandler, RequestHandler } from 'express';
import multer from 'multer';
import { INTERNAL_ERROR_BODY, MESSAGES } from '../core/errors.js';
import { isDatabaseUnavailable, SERVICE_UNAVAILABLE_BODY } from '../core/database-errors.js';

const MULTER_MESSAGES: Record<string, string> = {
  LIMIT_FILE_SIZE: 'The file is too large.',
  LIMIT_UNEXPECTED_FILE: 'Unexpected file: this field takes no file, or fewer files.',
  LIMIT_FILE_COUNT: 'Too many files.',
  LIMIT_PART_COUNT: 'Too many parts in the form.',
  LIMIT_FIELD_COUNT: 'Too many fields in the form.',
  LIMIT_FIELD_KEY: 'A field name is too long.',
  LIMIT_FIELD_VALUE: 'A field value is too long.',
  LIMIT_FIELD_ARRAY_INDEX: 'An array index in a field name is too large.',
  MISSING_FIELD_NAME: 'A form part has no field name.',
  INVALID_FIELD_NAME: 'A field name could not be read.',
};

/** Unknown routes: the contract's 404 body. */
export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json({ detail: MESSAGES.notFound });
};

/** Errors raised before an operation runs: body parsing, upload limits. Never a bare 500 page. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (err instanceof multer.MulterError) {
    // Field errors, under the form field when multer names one, in the contract's wording style.
    const field = err.field || 'non_field_errors';
    return void res.status(err.code === 'LIMIT_FILE_SIZE' ? 413 : 400).json({ [field]: [MULTER_MESSAGES[err.code] ?? 'The upload could not be read.'] });
  }
  const type = (err as { type?: string }).type;
  const status = (err as { status?: number }).status;
  if (type === 'entity.too.large' || status === 413) return void res.status(413).json({ detail: 'Request body is too large.' });
  if (type === 'entity.parse.failed') return void res.status(400).json({ detail: `JSON parse error - ${(err as Error).message}` });
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return void res.status(415).json({ detail: (err as Error).message });
  if (status && status >= 400 && status < 500) return void res.status(status).json({ detail: (err as Error).message });
  req.log?.error({ err }, 'unhandled error');
  // The caller's check (passport's user lookup) ran out of database time: busy, not broken.
  if (isDatabaseUnavailable(err)) return void res.status(503).setHeader('Retry-After', '5').json(SERVICE_UNAVAILABLE_BODY);
  res.status(500).json(INTERNAL_ERROR_BODY);
};
