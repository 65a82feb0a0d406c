import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Metrics } from '../platform/metrics.js';

/**
 * GET /metrics for Prometheus. It tells a stranger how busy the service is and what it runs, so it exists only
 * when METRICS_TOKEN is set, and then answers only a scraper presenting that token as a bearer token.
 * Without METRICS_TOKEN the path is not served at all (404, like any unknown path).
 */
export function metricsRoute(metrics: Metrics, token: string): RequestHandler {
  const expected = crypto.createHash('sha256').update(token).digest();
  return async (req, res) => {
    const presented = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    // Compared as digests: equal lengths for timingSafeEqual, and no timing hint about the token's length.
    if (!crypto.timingSafeEqual(crypto.createHash('sha256').update(presented).digest(), expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res.status(401).json({ detail: 'Authentication credentials were not provided.' });
      return;
    }
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(await metrics.registry.metrics());
  };
}
