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
    const caller = uploadCaller(req, res);
    if (!uploadsInFlight.begin(caller)) {
      res.setHeader('Retry-After', '1');
      return next(new HttpBodyError(429, TOO_MANY_UPLOADS));
    }
    // Until the answer is sent (or the client goes away), the body is held in memory: it counts until then.
    let ended = false;
    const end = () => {
      if (!ended) uploadsInFlight.end(caller);
      ended = true;
    };
    res.once('finish', end);
    res.once('close', end);
    upload(req, res, (err?: unknown) => next(err === undefined ? undefined : asBodyError(err)));
  };
}

/**
 * Uploads one caller may have in progress on this node. Rate limits count requests started, not requests
 * running: without this, one account could hold dozens of product forms (10 images of 10 MB each) in memory
 * at once and run the node out of it.
 */
export const MAX_UPLOADS_IN_FLIGHT_PER_CALLER = 2;
// The contract's throttle body: the client retries as it would after any 429.
export const TOO_MANY_UPLOADS = 'Request was throttled. Expected available in 1 second.';

class InFlightCounter {
  private readonly counts = new Map<string, number>();
  constructor(private readonly max: number) {}

  begin(key: string): boolean {
    const n = this.counts.get(key) ?? 0;
    if (n >= this.max) return false;
    this.counts.set(key, n + 1);
    return true;
  }

  end(key: string): void {
    const n = (this.counts.get(key) ?? 1) - 1;
    if (n <= 0) this.counts.delete(key);
    else this.counts.set(key, n);
  }
}

const uploadsInFlight = new InFlightCounter(MAX_UPLOADS_IN_FLIGHT_PER_CALLER);

/** The signed-in user, else the client address (operations that take files are signed-in ones today). */
function uploadCaller(req: IncomingMessage & { ip?: string }, res: { locals: Record<string, unknown> }): string {
  const userId = (res.locals.auth as { user?: { id?: string } | null } | undefined)?.user?.id;
  return userId ? `user:${userId}` : `ip:${req.ip ?? req.socket.remoteAddress ?? ''}`;
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
