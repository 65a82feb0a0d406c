import http from 'node:http';
import type { Duplex } from 'node:stream';

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
  server.on('clientError', answerClientError);

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

/**
 * A request Node's parser refuses before any handler sees it (headers or URL over the limit, a malformed
 * request line) would get Node's bare status line; the client gets the contract's JSON error instead.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // Node's own rule: no answer on a reset connection, nor in the middle of a response already started.
  const inProgress = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) return void socket.destroy();
  const [status, reason, detail] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'Request header fields too large.']
      : err.code === 'HPE_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'Request timeout.']
        : [400, 'Bad Request', 'Bad request.'];
  const body = JSON.stringify({ detail });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
