import express, { type Router } from 'express';
import { servedType } from '../core/media/media-names.js';
import { MEDIA_CACHE_CONTROL } from '../platform/storage.js';

/**
 * GET /media/... : stored uploads on disk (the default storage), served so that no browser can ever run one
 * (DESIGN.md section 8):
 * - every answer under /media/, found or not, says `nosniff` and carries a CSP that runs nothing and sandboxes the
 *   document, so even a file that a browser would take for a page gets no script, no origin and no cookies;
 * - the type comes from the name's extension, which was set from the bytes when the file was stored
 *   (core/media/media-names.ts); a name with any other extension (a file an older release kept under a client's
 *   `.html` or `.svg`) is not served at all;
 * - names are never reused, so files are cached for a year as immutable, with an ETag; `Range` is answered
 *   (audio players seek).
 * `Cross-Origin-Resource-Policy: cross-origin`: the apps and other sites embed these images and sounds.
 */
export const MEDIA_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

export function mediaFiles(root: string): Router {
  const router = express.Router();
  router.use((req, res, next) => {
    res.set(MEDIA_SECURITY_HEADERS);
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.status(405).set('Allow', 'GET, HEAD').json({ detail: `Method "${req.method}" not allowed.` });
    // Only names this service writes are served; the check reads the decoded path, as the static handler will.
    const file = decodePath(req.path);
    if (!servedType(file) || file.includes('\0')) return void res.status(404).json({ detail: 'Not found.' });
    next();
  });
  router.use(
    express.static(root, {
      index: false,
      redirect: false,
      fallthrough: false,
      dotfiles: 'deny',
      etag: true,
      lastModified: true,
      acceptRanges: true,
      cacheControl: false,
      // Runs before the static handler picks a type from its own table: ours, from the name, wins.
      setHeaders: (res, file) => {
        res.setHeader('Content-Type', servedType(file)!);
        res.setHeader('Cache-Control', MEDIA_CACHE_CONTROL);
      },
    }),
  );
  // A missing file: the contract's 404 body, still with the headers above.
  router.use(((err, _req, res, next) => {
    if (res.headersSent) return next(err);
    const status = (err as { status?: number }).status ?? 500;
    res.status(status === 404 || status === 403 ? 404 : status).json({ detail: status === 404 || status === 403 ? 'Not found.' : 'A server error occurred.' });
  }) as express.ErrorRequestHandler);
  return router;
}

function decodePath(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return '';
  }
}
