import http from 'node:http';

/**
 * Graceful close of the HTTP server (SIGTERM, or stop() in tests): stop accepting connections at once,
 * let the requests already running finish, answer them with `Connection: close` so that keep-alive
 * clients do not hold the server open, and cut whatever is still running when the grace period ends.
 */
export interface DrainableServer {
  server: http.Server;
  drain(graceMs: number): Promise<void>;
}

export function drainableServer(handler: http.RequestListener): DrainableServer {
  const running = new Set<http.ServerResponse>();
  let draining = false;
  const server = http.createServer((req, res) => {
    running.add(res);
    res.once('close', () => running.delete(res));
    if (draining) closeAfterResponse(res);
    handler(req, res);
  });

  return {
    server,
    async drain(graceMs) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const res of running) closeAfterResponse(res);
      server.closeIdleConnections();
      // Set before anything else is awaited: a request that never ends must not stall the shutdown.
      const grace = setTimeout(() => server.closeAllConnections(), graceMs);
      try {
        await closed;
      } finally {
        clearTimeout(grace);
      }
    },
  };
}

function closeAfterResponse(res: http.ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}
