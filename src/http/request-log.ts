import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp, type HttpLogger } from 'pino-http';
import type { Logger } from '../platform/logger.js';

const REQUEST_ID = /^[\w.:\-]{1,128}$/;

/**
 * Request logging: one short line per request (request id, method, path, status, time), and `req.log`
 * bound to the request id for every line logged while handling it. pino-http's defaults serialise every
 * request and response header on every request, logged or not: a large share of a cheap request's CPU,
 * and the headers carry tokens and cookies besides.
 */
export function requestLogger(log: Logger, opts: { autoLogging: boolean }): HttpLogger {
  return pinoHttp({
    logger: log,
    genReqId: (req, res) => {
      // A caller's id is kept so a request can be traced across services, if it looks like an id:
      // it is echoed in a header and written to every log line of the request.
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    autoLogging: opts.autoLogging,
    quietReqLogger: true,
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { originalUrl?: string }) => ({ method: req.method, url: req.originalUrl ?? req.url }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
  });
}
