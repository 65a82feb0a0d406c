import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type NextFunction } from 'express';
import { AppError } from '../../core/errors.js';
import { isUuid } from '../../core/validation.js';
import { isDatabaseTimeout } from '../../core/database-errors.js';
import { serverBaseUrl } from '../../core/server-base-url.js';
import { platform } from '../../platform/index.js';
import { placeSummary } from '../../modules/locations/place-summary.js';
import { displayPage, missingPlacePage, unavailablePage, type DisplayTheme } from './display-page.js';
import { qrCodeSvg } from './display-qr.js';

/**
 * The neighbourhood live display (DESIGN.md section 8): `GET /display/{location_id}`, no login. An HTML page,
 * not an operation: its data arrives over the same socket operations and events as any client's
 * (`subscribe`, `posts.by_location`, `post:created` ...), through @hyperlocal/client. Its assets are served from
 * the repository, and the client from /client/ (client-assets.ts): a display needs no network beyond this service.
 */
const ASSETS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');

/**
 * Page loads and summary reads per client address, together: a screen loads the page once and reads the summary
 * after each reconnection, so even a shop's twenty screens behind one address restarting at once stay far below it.
 * It bounds what one address can make the place-summary cache read (every unknown id is a read of its own).
 */
export const DISPLAY_RATE_LIMIT = { points: 120, durationSeconds: 60 };

export function displayRouter(): express.Router {
  const router = express.Router();
  const assets = { index: false, dotfiles: 'deny', maxAge: '5m' } as const;
  router.use('/display/assets', noSniff, express.static(ASSETS_DIR, assets));
  router.get(['/display', '/display/'], (req, res) => {
    setPageHeaders(req, res);
    res.status(404).send(missingPlacePage(themeOf(req.query.theme)));
  });
  router.get('/display/:location_id/summary.json', (req, res, next) => {
    serveSummary(req, res).catch(next);
  });
  router.get(['/display/:location_id', '/display/:location_id/'], (req, res, next) => {
    servePage(req, res).catch(next);
  });
  return router;
}

function noSniff(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}

async function servePage(req: Request, res: Response): Promise<void> {
  const theme = themeOf(req.query.theme);
  setPageHeaders(req, res);
  const id = String(req.params.location_id);
  const refusal = await displayThrottle(req);
  if (refusal) return void res.status(429).set(refusal.headers).send(unavailablePage(theme, Number(refusal.headers['Retry-After'])));
  if (!isUuid(id)) return void res.status(404).send(missingPlacePage(theme));
  let place;
  try {
    place = await placeSummary(id.toLowerCase());
  } catch (err) {
    if (isDatabaseTimeout(err)) return void res.status(503).setHeader('Retry-After', '15').send(unavailablePage(theme));
    throw err;
  }
  if (!place) return void res.status(404).send(missingPlacePage(theme));
  const feedUrl = locationFeedUrl(place.id);
  res.send(
    displayPage({
      locationId: place.id,
      name: place.name,
      members: place.total_users,
      posts: place.post_count,
      stores: place.store_count,
      feedUrl,
      qrSvg: await qrCodeSvg(feedUrl),
      theme,
    }),
  );
}

/**
 * The place's name and live counts as JSON, for a display that comes back after a gap: no anonymous API operation
 * answers them (locations.detail needs a signed-in caller), and they are what the page printed at load. Only what
 * the page itself shows: no point, no boundary.
 */
async function serveSummary(req: Request, res: Response): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const refusal = await displayThrottle(req);
  if (refusal) return void res.status(429).set(refusal.headers).json(refusal.body);
  const id = String(req.params.location_id);
  if (!isUuid(id)) return void res.status(404).json({ detail: 'Not found.' });
  let place;
  try {
    place = await placeSummary(id.toLowerCase());
  } catch (err) {
    if (isDatabaseTimeout(err)) return void res.status(503).setHeader('Retry-After', '15').json({ detail: 'Service temporarily unavailable, try again later.' });
    throw err;
  }
  if (!place) return void res.status(404).json({ detail: 'Not found.' });
  res.json(place);
}

/** Count one display request of the caller's address: null when admitted, else the 429 (its body and Retry-After). */
async function displayThrottle(req: Request): Promise<AppError | null> {
  try {
    await platform.rateLimits.consume('display', req.ip ?? '', DISPLAY_RATE_LIMIT.points, DISPLAY_RATE_LIMIT.durationSeconds);
    return null;
  } catch (err) {
    if (err instanceof AppError && err.status === 429) return err;
    throw err;
  }
}

function setPageHeaders(req: Request, res: Response): void {
  res.setHeader('Content-Security-Policy', contentSecurityPolicy(req));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res.type('html');
}

const themeOf = (value: unknown): DisplayTheme => (value === 'dark' || value === 'light' ? value : null);

/**
 * Where the QR code leads: DISPLAY_FEED_URL with `{location_id}` filled in (a web or app address of the place),
 * or else the location feed of the API, `GET /api/feed/hybrid/location/{id}/`, under PUBLIC_BASE_URL or the
 * listening address: absolute, and never built from the caller's Host header.
 */
export function locationFeedUrl(locationId: string): string {
  const template = platform.config.DISPLAY_FEED_URL;
  if (template) return template.replaceAll('{location_id}', locationId);
  return `${serverBaseUrl()}/api/feed/hybrid/location/${locationId}/`;
}

/**
 * Scripts, styles and fonts from this service only (no inline script or style; the QR code is markup). Images may
 * also come from the media origins (S3, PUBLIC_BASE_URL), and the socket connects back to this host over
 * polling or WebSocket ('self' covers ws: only in browsers that implement CSP 3, so the ws/wss forms of the
 * page's own host are named too).
 */
function contentSecurityPolicy(req: Request): string {
  const media = mediaOrigins();
  const host = req.get('host') ?? '';
  const sockets = /^[a-z0-9.\-[\]:]+$/i.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self'${media}`,
    `connect-src 'self'${sockets}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

function mediaOrigins(): string {
  const origins = new Set<string>();
  for (const url of [serverBaseUrl(), platform.storage.url('display-probe', serverBaseUrl())]) {
    try {
      origins.add(new URL(url).origin);
    } catch {
      // not an absolute URL: its media are on this host ('self')
    }
  }
  return [...origins].map((o) => ` ${o}`).join('');
}
