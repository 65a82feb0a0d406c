import fs from 'node:fs';
import type http from 'node:http';
import type { Socket } from 'socket.io-client';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Operation } from '../../src/core/operation.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { compareSpecificity, expressPath } from '../../src/http/route-paths.js';

/**
 * Every answer a test receives is checked against the OpenAPI document the service publishes, by a JSON Schema
 * validator nobody here wrote (ajv, draft 2020-12, the dialect of OpenAPI 3.1): the status must be one the operation
 * documents, and the body must match that status's schema. A document that lies about an answer therefore fails the
 * test file that received it, whichever test that is (issue 34).
 *
 * REST answers are read off the test app's HTTP server (supertest, fetch and raw sockets alike); socket acks are read
 * off the clients the test app hands out. `OPENAPI_CHECK=report:<file>` appends the violations to a file instead of
 * failing, for surveying the whole suite at once.
 */
export interface OpenApiCheck {
  /** Reads every operation answer the server sends. */
  watchServer(server: http.Server): void;
  /** Reads every ack of an operation event this client receives. */
  watchSocket(socket: Socket): void;
  /** The violations seen so far (`operation status: reason`), each once. */
  violations(): string[];
}

// ajv-formats is CommonJS: under jest's ESM its function is the module's `default`, under tsx the module itself.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => unknown;

interface Compiled {
  ajv: Ajv2020;
  doc: any;
  routes: { op: Operation; method: string; pattern: RegExp }[];
  byName: Map<string, Operation>;
  validators: Map<string, ValidateFunction | null>;
}

// One document and one validator per operation table (a test file builds its app once; a few build several).
const compiledByTable = new WeakMap<readonly Operation[], Compiled>();

function compile(operations: readonly Operation[]): Compiled {
  const cached = compiledByTable.get(operations);
  if (cached) return cached;
  const doc = openApiDocument(operations);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const routes = operations
    .map((op) => ({ op, method: op.method, path: expressPath(op.path) }))
    .sort((a, b) => compareSpecificity(a.path, b.path))
    .map(({ op, method, path }) => ({ op, method, pattern: new RegExp(`^${path.replace(/\/$/, '').replace(/:\w+/g, '[^/]+')}/?$`) }));
  const compiled = { ajv, doc, routes, byName: new Map(operations.map((op) => [op.name, op])), validators: new Map() };
  compiledByTable.set(operations, compiled);
  return compiled;
}

export function openApiCheck(operations: readonly Operation[]): OpenApiCheck {
  const c = compile(operations);
  const seen = new Set<string>();
  const report = process.env.OPENAPI_CHECK?.startsWith('report:') ? process.env.OPENAPI_CHECK.slice('report:'.length) : null;

  function record(op: Operation, status: number, reason: string, transport: string): void {
    const line = `${op.name} ${status} (${transport}): ${reason}`;
    if (seen.has(line)) return;
    seen.add(line);
    if (report) fs.appendFileSync(report, `${JSON.stringify({ file: expect.getState().testPath, line })}\n`);
  }

  function check(op: Operation, status: number, body: unknown, transport: string): void {
    const entry = c.doc.paths[op.path]?.[op.method.toLowerCase()];
    if (!entry) return;
    const response = entry.responses[String(status)] ?? entry.responses.default;
    if (!response) return record(op, status, `status not documented (documented: ${Object.keys(entry.responses).join(', ')})`, transport);
    // An operation that produces another media type (text/calendar) documents its body under that type.
    const schema = response.content?.['application/json']?.schema ?? (response.content ? (Object.values(response.content)[0] as { schema?: unknown } | undefined)?.schema : undefined);
    if (!schema) {
      // A 204 (or a test's throwaway operation documented as `default`) carries nothing to check.
      if (status === 204 && body !== null && body !== undefined && body !== '') record(op, status, 'a 204 with a body', transport);
      return;
    }
    const key = `${op.name} ${status}`;
    let validate = c.validators.get(key);
    if (validate === undefined) {
      const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
      validate = c.ajv.compile(rebased);
      c.validators.set(key, validate);
    }
    if (validate && !validate(body)) {
      const reasons = (validate.errors ?? []).slice(0, 4).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` '${e.params.additionalProperty}'` : ''}`);
      record(op, status, `body does not match: ${reasons.join('; ')} in ${JSON.stringify(body).slice(0, 300)}`, transport);
    }
  }

  function routeOf(method: string, url: string): Operation | undefined {
    const path = url.split('?')[0];
    return c.routes.find((r) => r.method === method && r.pattern.test(path))?.op;
  }

  return {
    watchServer(server) {
      server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
        const op = routeOf(req.method ?? 'GET', req.url ?? '/');
        if (!op) return;
        const chunks: Buffer[] = [];
        const write = res.write.bind(res) as (...args: unknown[]) => boolean;
        const end = res.end.bind(res) as (...args: unknown[]) => http.ServerResponse;
        const keep = (chunk: unknown, encoding?: unknown) => {
          if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
          chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
        };
        res.write = ((chunk: unknown, ...rest: unknown[]) => {
          keep(chunk, rest[0]);
          return write(chunk, ...rest);
        }) as typeof res.write;
        res.end = ((chunk?: unknown, ...rest: unknown[]) => {
          keep(chunk, rest[0]);
          return end(chunk, ...rest);
        }) as typeof res.end;
        res.once('finish', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const type = String(res.getHeader('content-type') ?? '');
          if (res.statusCode === 204 || text === '') return check(op, res.statusCode, null, 'REST');
          const documented = c.doc.paths[op.path]?.[op.method.toLowerCase()]?.responses[String(res.statusCode)]?.content ?? {};
          const textType = Object.keys(documented).find((t) => t !== 'application/json' && type.startsWith(t));
          if (textType) return check(op, res.statusCode, text, 'REST');
          if (!type.includes('application/json')) return record(op, res.statusCode, `answered ${type || 'no content type'}, not JSON`, 'REST');
          try {
            check(op, res.statusCode, JSON.parse(text), 'REST');
          } catch (err) {
            record(op, res.statusCode, `unreadable JSON: ${(err as Error).message}`, 'REST');
          }
        });
      });
    },
    watchSocket(socket) {
      const emit = socket.emit.bind(socket) as (...args: unknown[]) => Socket;
      socket.emit = ((event: string, ...args: unknown[]) => {
        const op = c.byName.get(event);
        const ack = args[args.length - 1];
        if (op && typeof ack === 'function') {
          args[args.length - 1] = (...answer: unknown[]) => {
            // With a timeout (emitWithAck after socket.timeout()) the first argument is the error, then the ack.
            const result = (answer.length > 1 ? answer[1] : answer[0]) as { status?: number; body?: unknown } | undefined;
            if (result && typeof result === 'object' && typeof result.status === 'number') check(op, result.status, result.body, 'socket');
            return (ack as (...a: unknown[]) => unknown)(...answer);
          };
        }
        return emit(event, ...args);
      }) as typeof socket.emit;
    },
    violations: () => (report ? [] : [...seen]),
  };
}
