import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { requestLogger } from '../../src/http/request-log.js';

/**
 * Request logging stays cheap and safe: one line per request with the request id, method, path, status
 * and time, and no header dump (no tokens or cookies, no per-request serialisation of every header).
 */
function logSink() {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, log: requestLogger(pino({ level: 'info', base: undefined }, sink), { autoLogging: true }) };
}

async function logLinesOf(
  headers: Record<string, string>,
  handler: (req: http.IncomingMessage & { log?: pino.Logger }, res: http.ServerResponse) => void = () => undefined,
) {
  const { lines, log } = logSink();
  const server = http.createServer((req, res) => {
    log(req, res);
    handler(req as any, res);
    res.setHeader('Set-Cookie', 'refresh_token=secret');
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const answer = await new Promise<http.IncomingMessage>((resolve) => http.get({ port, host: '127.0.0.1', path: '/api/users/profile/?page=2', headers }, resolve));
  answer.resume();
  await new Promise((r) => answer.on('end', r));
  await new Promise((r) => server.close(r));
  return { lines, answer };
}

describe('request log', () => {
  test('when a request is answered, then one line carries its id, method, path, status and time, and no headers', async () => {
    const { lines, answer } = await logLinesOf({ authorization: 'Bearer the-token', cookie: 'refresh_token=abc', 'x-request-id': 'trace-42' });
    expect(answer.headers['x-request-id']).toBe('trace-42');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: 'trace-42', req: { method: 'GET', url: '/api/users/profile/?page=2' }, res: { statusCode: 200 } });
    expect(typeof lines[0].responseTime).toBe('number');
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('headers');
    expect(text).not.toContain('the-token');
    expect(text).not.toContain('secret');
  });

  test('when a handler logs while serving the request, then its line carries the request id', async () => {
    const { lines } = await logLinesOf({}, (req) => req.log!.warn('inside'));
    const inside = lines.find((l) => l.msg === 'inside')!;
    expect(inside.reqId).toMatch(/^[0-9a-f-]{36}$/);
    expect(inside.req).toBeUndefined();
  });

  test('when the answer is a server error, then its line says so, with the status and an error', async () => {
    const { lines } = await logLinesOf({}, (_req, res) => void (res.statusCode = 503));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request errored', res: { statusCode: 503 }, err: { message: 'failed with status code 503' } });
    expect(typeof lines[0].responseTime).toBe('number');
  });

  test('when the client leaves before the answer, then the line says the request was aborted', async () => {
    const { lines, log } = logSink();
    let closed!: () => void;
    const done = new Promise<void>((resolve) => (closed = resolve));
    const server = http.createServer((req, res) => {
      log(req, res);
      res.on('close', () => setImmediate(closed));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const req = http.get({ port, host: '127.0.0.1', path: '/slow' });
    req.on('error', () => undefined);
    await new Promise((r) => setTimeout(r, 50));
    req.destroy();
    await done;
    await new Promise((r) => server.close(r));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request aborted', req: { method: 'GET', url: '/slow' }, reqId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  test('when a request is answered normally, then the line says request completed, once', async () => {
    const { lines } = await logLinesOf({});
    expect(lines.map((l) => l.msg)).toEqual(['request completed']);
  });
});
