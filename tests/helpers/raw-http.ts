import http from 'node:http';
import net from 'node:net';

/**
 * HTTP at the byte level, for what supertest cannot do: a body sent only in part (to show that the server
 * answered without waiting for the rest), hand-made multipart bodies, requests Node's parser refuses.
 */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Bytes of the request body written when the response arrived. */
  bytesSentBeforeAnswer: number;
}

export function rawRequest(
  baseUrl: string,
  opts: { method: string; path: string; headers?: Record<string, string | number>; chunks?: Buffer[]; end?: boolean },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    const req = http.request(`${baseUrl}${opts.path}`, { method: opts.method, headers: opts.headers, agent: false }, (res) => {
      const answeredAt = sent;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: the test sees the text
        }
        req.destroy();
        resolve({ status: res.statusCode!, headers: res.headers, body, bytesSentBeforeAnswer: answeredAt });
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // The server may close the connection while the client still writes the rest of a refused body.
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    for (const chunk of opts.chunks ?? []) {
      req.write(chunk);
      sent += chunk.length;
    }
    if (opts.end !== false) req.end();
  });
}

/** Raw bytes on a TCP connection; resolves with everything the server sent before closing. */
export function rawExchange(baseUrl: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    const parts: Buffer[] = [];
    socket.on('data', (c) => parts.push(c));
    socket.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    socket.on('error', reject);
  });
}

/** A multipart/form-data body of text fields, with the boundary it uses. */
export function multipartBody(fields: Record<string, string>, boundary = `----test${Date.now()}`): { boundary: string; body: Buffer } {
  const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  return { boundary, body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`) };
}
