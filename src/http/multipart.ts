import { Transform, type TransformCallback, type Writable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import multer from 'multer';
import type { Operation } from '../core/operation.js';

/**
 * Multipart bodies (uploads) of an operation that takes files. Every dimension is bounded, since the
 * body is held in memory: the number and size of files (from the operation's file fields), the number
 * and size of text fields, and the whole body. Routes run this only after the caller was admitted
 * (auth rule and rate limits), so an anonymous flood is refused before its body is read.
 */

/** Text fields a form may carry: the widest form (a profile with a location) has about twenty. */
export const MULTIPART_MAX_FIELDS = 50;
/** One text field: far above any text an operation accepts (a bio is 500 characters). */
export const MULTIPART_MAX_FIELD_BYTES = 64 * 1024;
/** Room for the text fields and the part headers, on top of the files. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

export class HttpBodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const bodyTooLarge = () => new HttpBodyError(413, 'Request body is too large.');

export function multipartFor(op: Operation): RequestHandler {
  const files = op.files ?? [];
  const maxFiles = files.reduce((n, f) => n + f.maxCount, 0);
  const maxBodyBytes = files.reduce((n, f) => n + f.maxCount * f.maxBytes, 0) + FORM_OVERHEAD_BYTES;
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: {
      fileSize: Math.max(...files.map((f) => f.maxBytes)),
      files: maxFiles,
      fields: MULTIPART_MAX_FIELDS,
      fieldSize: MULTIPART_MAX_FIELD_BYTES,
      fieldNameSize: 100,
      parts: MULTIPART_MAX_FIELDS + maxFiles,
      // `a[99999999]=x` would build an array of that length, which the handler then walks.
      fieldArrayIndexLimit: 100,
    },
    // Counts the bytes of a chunked body, which announces no length up front.
    streamHandler: (req: IncomingMessage, busboy: Writable) => {
      const cap = byteCap(maxBodyBytes, busboy);
      // Once the parser gave up, multer drains the rest of the request; it must not reach the parser.
      busboy.once('close', () => req.unpipe(cap));
      req.pipe(cap).pipe(busboy);
    },
  } as multer.Options).fields(files.map((f) => ({ name: f.name, maxCount: f.maxCount })));

  return (req, res, next) => {
    if (!req.is('multipart/form-data')) return next();
    if (Number(req.headers['content-length'] ?? 0) > maxBodyBytes) return next(bodyTooLarge());
    upload(req, res, (err?: unknown) => next(err === undefined ? undefined : asBodyError(err)));
  };
}

/** A stream that passes bytes through until `limit`, then fails the parser it feeds with a 413. */
function byteCap(limit: number, parser: Writable): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      seen += chunk.length;
      if (seen > limit) {
        parser.destroy(bodyTooLarge());
        return done();
      }
      done(null, chunk);
    },
  });
}

/**
 * Multer's own limit errors are rendered by the error handler; what busboy reports about a body it cannot
 * parse (no boundary, a truncated form) is the client's fault, a 400, not the server's 500.
 */
function asBodyError(err: unknown): unknown {
  if (err instanceof multer.MulterError || err instanceof HttpBodyError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new HttpBodyError(400, `Multipart form parse error - ${message}`);
}
