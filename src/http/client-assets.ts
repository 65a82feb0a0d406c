import path from 'node:path';
import { createRequire } from 'node:module';
import express, { type NextFunction, type Request, type Response } from 'express';

/**
 * The browser build of @hyperlocal/client, at `/client/hyperlocal.js`: `import { createClient } from '/client/hyperlocal.js'`
 * in a page of this service (the display page does). No bundler: the package's own ES modules are served as committed
 * (client/lib), its entry under that name, and its one bare import (`socket.io-client`, kept alone in socket-io.js)
 * is answered by a module that re-exports socket.io's browser bundle, served beside it from the version the package
 * resolves. Served like the display's assets: `nosniff`, cached a few minutes, scripts only.
 */
const clientPackage = createRequire(import.meta.url).resolve('@hyperlocal/client/package.json');
const CLIENT_LIB = path.join(path.dirname(clientPackage), 'lib');
const SOCKET_IO_DIST = path.join(path.dirname(createRequire(clientPackage).resolve('socket.io-client/package.json')), 'dist');

const BROWSER_SOCKET_IO = "// socket.io-client's browser bundle, for @hyperlocal/client in browsers (src/http/client-assets.ts).\nexport { io } from './vendor/socket.io.esm.min.js';\n";

export function clientAssetsRouter(): express.Router {
  const router = express.Router();
  const assets = { index: false, dotfiles: 'deny', maxAge: '5m' } as const;
  router.use('/client', noSniff);
  router.get('/client/hyperlocal.js', (_req, res) => res.sendFile(path.join(CLIENT_LIB, 'index.js'), { maxAge: '5m' }));
  router.get('/client/socket-io.js', (_req, res) => res.set('Cache-Control', 'public, max-age=300').type('js').send(BROWSER_SOCKET_IO));
  // The one file socket-io.js names, not the whole of socket.io's dist (source maps, other builds).
  router.get('/client/vendor/socket.io.esm.min.js', (_req, res) => res.sendFile(path.join(SOCKET_IO_DIST, 'socket.io.esm.min.js'), { maxAge: '5m' }));
  // The modules themselves; their type declarations (and anything else) are not the browser's business.
  router.use('/client', onlyScripts, express.static(CLIENT_LIB, assets));
  return router;
}

function noSniff(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}

function onlyScripts(req: Request, _res: Response, next: NextFunction): void {
  if (req.path.endsWith('.js')) return next();
  next('router');
}
