import path from 'node:path';
import { createRequire } from 'node:module';
import express, { type RequestHandler } from 'express';
import cookieParser from 'cookie-parser';
import type { Operation } from '../core/operation.js';
import type { OperationRunner } from '../core/run-operation.js';
import { platform } from '../platform/index.js';
import { configurePassport } from './auth.js';
import { operationRouter } from './routes.js';
import { openApiDocument } from './openapi.js';
import { docsPage, docsInit } from './docs-page.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { requestBaseUrl } from './context.js';
import { isTrustedProxy } from '../core/client-address.js';
import { requestLogger } from './request-log.js';
import { metricsRoute } from './metrics-route.js';
import { health } from './health.js';
import { displayRouter } from './display/display.route.js';
import { clientAssetsRouter } from './client-assets.js';
import { mediaFiles } from './media-files.js';

/** The Express application: middleware, health, docs, media, and every operation as a route. */
export function createHttpApp(operations: readonly Operation[], runner: OperationRunner): express.Express {
  const app = express();
  const { config } = platform;
  app.disable('x-powered-by');
  // Behind nginx (the cluster profile) the client's address and scheme come from X-Forwarded-*,
  // believed only from a proxy in a private network (see core/client-address.ts).
  app.set('trust proxy', (address: string) => isTrustedProxy(address));
  app.use(requestLogger(platform.log, { autoLogging: config.NODE_ENV !== 'test' }));
  app.use(cors(config.CORS_ORIGINS));
  app.use(cookieParser());
  app.use(rejectUnsupportedContentType);
  // The JWT strategy is registered once; no passport.initialize() middleware: `authenticate` (run per route, only
  // when an Authorization header is sent) sets up what it needs, and sessions are not used.
  configurePassport();

  app.get('/health', health);

  if (config.METRICS_TOKEN) app.get('/metrics', metricsRoute(platform.metrics, config.METRICS_TOKEN));

  const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  app.get('/api/docs/openapi.json', (req, res) => res.json(openApiDocument(operations, requestBaseUrl(req))));
  app.get(['/api/docs', '/api/docs/'], (_req, res) => res.type('html').send(docsPage));
  app.get('/api/docs/init.js', (_req, res) => res.type('js').send(docsInit));
  app.use('/api/docs/assets', express.static(swaggerDir, { index: false }));

  if (platform.storage.kind === 'disk') {
    app.use('/media', mediaFiles(path.join(config.dataDir, 'media')));
  }

  app.use(displayRouter());
  app.use(clientAssetsRouter());

  // Bodies are parsed per route, after the caller is admitted (routes.ts).
  app.use(operationRouter(operations, runner, { json: config.JSON_BODY_LIMIT }));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

const BODY_TYPES = ['application/json', 'multipart/form-data', 'application/x-www-form-urlencoded'];

/** A body in a format no operation reads would be silently ignored: refuse it instead (415). */
const rejectUnsupportedContentType: RequestHandler = (req, res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  const type = req.headers['content-type'];
  if (hasBody && type && !BODY_TYPES.some((t) => req.is(t))) {
    res.status(415).json({ detail: `Unsupported media type "${type.split(';')[0]}" in request.` });
    return;
  }
  next();
};

/**
 * CORS: any origin may call with bearer tokens; only the listed origins get credentials (cookies),
 * since the refresh cookie must never be readable cross-site by an arbitrary page.
 */
function cors(origins: string): RequestHandler {
  const allowed = origins.split(',').map((o) => o.trim()).filter(Boolean);
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin) {
      if (allowed.includes(origin)) {
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Access-Control-Allow-Credentials', 'true');
        res.setHeader('Vary', 'Origin');
      } else if (allowed.includes('*')) {
        res.setHeader('Access-Control-Allow-Origin', '*');
      }
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Request-Id');
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
      res.setHeader('Access-Control-Expose-Headers', 'Retry-After, X-Request-Id');
    }
    if (req.method === 'OPTIONS') return void res.status(204).end();
    next();
  };
}
