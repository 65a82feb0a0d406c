import { z } from 'zod';
import type { ErrorStatus, Operation } from '../core/operation.js';
import { zBadRequest, zDetailError, zGeneralError, zUnavailable } from '../core/response-schemas.js';
import { MEDIA_RULES_FOR_CLIENTS } from '../core/media/media-names.js';
import { effectiveRateLimits } from '../core/operation-limits.js';

/**
 * OpenAPI 3.1 generated from the operation table: one operation per route, operationId = the
 * operation's name, the zod input split into path parameters, query parameters (GET/DELETE) or a body;
 * the success bodies an operation declares in `responses`, and the error bodies its auth rule, path
 * parameters and rate limits make possible. Resources with an id (`.meta({id: 'User'})`) become
 * components, referenced wherever they appear.
 */
export function openApiDocument(operations: readonly Operation[], serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, unknown> = {};
  const responseSchema = (schema: z.ZodType) => toComponentJsonSchema(schema, schemas);
  const errorResponse = (description: string, schema: z.ZodType) => ({ description, content: { 'application/json': { schema: responseSchema(schema) } } });
  for (const op of operations) {
    const schema = toJsonSchema(op.input);
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    const required = new Set((schema.required ?? []) as string[]);
    const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const parameters: unknown[] = pathParams.map((name) => ({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } }));
    const rest = Object.fromEntries(Object.entries(properties).filter(([name]) => !pathParams.includes(name)));
    const fileFields = op.files ?? [];
    let requestBody: unknown;
    const inQuery = op.inputIn ? op.inputIn === 'query' : op.method === 'GET' || op.method === 'DELETE';
    if (inQuery) {
      // A list in the query string is one comma-separated value (`categories=food,crafts`), as the contract says.
      for (const [name, s] of Object.entries(rest)) parameters.push({ name, in: 'query', required: required.has(name), schema: s, ...(isArraySchema(s) ? { style: 'form', explode: false } : {}) });
    } else if (Object.keys(rest).length || fileFields.length) {
      const bodySchema = { type: 'object', properties: rest, required: [...required].filter((n) => n in rest) };
      const content: Record<string, unknown> = { 'application/json': { schema: bodySchema } };
      if (fileFields.length) {
        const multipartProps = { ...rest };
        for (const f of fileFields) {
          // The field's own description (core/uploads.ts: what is accepted and what is done to it) stays with it.
          const description = (rest[f.name] as { description?: string } | undefined)?.description;
          const file = { type: 'string', format: 'binary', ...(description ? { description } : {}) };
          multipartProps[f.name] = f.maxCount === 1 ? file : { type: 'array', items: file, maxItems: f.maxCount };
        }
        content['multipart/form-data'] = { schema: { ...bodySchema, properties: multipartProps } };
      }
      requestBody = { required: bodySchema.required.length > 0, content };
    }
    const entry = {
      operationId: op.name,
      summary: op.summary,
      tags: op.tags,
      description: `Also served over Socket.IO as the event \`${op.name}\` (ack: {status, body}).`,
      security: op.auth === 'public' ? [] : op.auth === 'optional' ? [{}, { bearer: [] }] : [{ bearer: [] }],
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses: documentedResponses(op, { pathParams, paged: 'page' in properties, errorResponse, responseSchema }),
    };
    (paths[op.path] ??= {})[op.method.toLowerCase()] = entry;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Hyperlocal social and local commerce API', version: '1.0.0', description: MEDIA_RULES_FOR_CLIENTS },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    paths,
  };
}

type ResponseEntry = Record<string, unknown>;

/**
 * Every status an operation can answer, each with its body: the success bodies it declares (204 without content),
 * the errors its handler declares in `errors`, and those the house rules add to every operation of its kind.
 */
function documentedResponses(
  op: Operation,
  parts: {
    pathParams: string[];
    paged: boolean;
    errorResponse: (description: string, schema: z.ZodType) => ResponseEntry;
    responseSchema: (schema: z.ZodType) => Record<string, unknown>;
  },
): Record<string, ResponseEntry> {
  const { errorResponse, responseSchema } = parts;
  const responses: Record<string, ResponseEntry> = {};
  const successes = Object.entries(op.responses ?? {});
  // Only a test's throwaway operation goes without (the registry's are checked in tests/unit/openapi-document.test.ts).
  if (!successes.length) responses.default = { description: 'Not documented' };
  for (const [status, schema] of successes) {
    if (!/^2\d\d$/.test(status)) throw new Error(`${op.name}: responses holds success statuses only (${status} belongs in errors)`);
    responses[status] = status === '204' ? { description: 'No content' } : { description: 'Success', content: { [op.produces ?? 'application/json']: { schema: responseSchema(schema!) } } };
  }
  // The house rules answer `{detail}` (DetailError); what a handler declares may also be `{error}` (GeneralError).
  const error = (status: number, description: string, schema: z.ZodType = zDetailError) => (responses[status] = errorResponse(description, schema));
  responses[400] = errorResponse('Invalid input, or a rule of the resource refused it', zBadRequest);
  if (op.auth !== 'public') error(401, 'No valid access token (`code: token_not_valid` when one was sent)');
  if (op.auth === 'staff' || op.auth === 'admin') error(403, 'The caller lacks the rights');
  if (parts.pathParams.length) error(404, 'No such resource, or not one the caller may see');
  else if (parts.paged) error(404, 'A page past the end (`Invalid page.`)');
  for (const status of op.errors ?? []) error(status, ERROR_DESCRIPTIONS[status], zGeneralError);
  if (effectiveRateLimits(op).length) responses[429] = { ...errorResponse('Rate limit spent', zGeneralError), headers: RETRY_AFTER };
  // Answered by the HTTP transport before the operation runs, to any request that carries a body (a GET too).
  responses[413] = errorResponse('The body is larger than the limit (a file field names itself: `{field: [message]}`)', zBadRequest);
  error(415, 'The body is in a format no operation reads');
  error(500, 'A server error occurred');
  responses[503] = { ...errorResponse('The database is out of reach or out of time: try again', zUnavailable), headers: RETRY_AFTER };
  return responses;
}

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } };

const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  401: 'The credentials were refused',
  403: 'The caller may not do this (not the owner, a block, a rule of the resource)',
  404: 'Something the input names does not exist, or not for the caller',
  409: 'The resource changed or is taken',
  410: 'Gone',
  422: 'The input was understood but cannot be processed',
  423: 'Locked',
  429: 'Too many of these for now (a rule of the resource, with its own body)',
};

const isArraySchema = (schema: unknown) => {
  const s = schema as { type?: unknown; anyOf?: { type?: unknown }[] };
  return s?.type === 'array' || (Array.isArray(s?.anyOf) && s.anyOf.some((part) => part?.type === 'array'));
};

function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  } catch {
    return { type: 'object' };
  }
}

/**
 * A response schema as JSON Schema whose named parts (zod `.meta({id})`) are moved into `components`
 * and referenced from there, so a resource has one definition however many operations answer it.
 * Also used for the payloads of pushed events (scripts/client-types.ts), so they name the same components.
 */
export function toComponentJsonSchema(schema: z.ZodType, components: Record<string, unknown>): Record<string, unknown> {
  let json: Record<string, unknown>;
  try {
    json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  } catch {
    return {};
  }
  const rewritten = JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as Record<string, unknown>;
  const { $schema: _dialect, $defs, ...rest } = rewritten;
  for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, unknown>)) addComponent(components, id, definition);
  const id = schema.meta()?.id;
  if (typeof id === 'string' && !rest.$ref) {
    addComponent(components, id, rest);
    return { $ref: `#/components/schemas/${id}` };
  }
  return rest;
}

/**
 * Two different schemas under one id would leave the document with whichever came last, and every client generated
 * from it wrong for the other: that is a programming error, caught when the document is built (at start and in tests).
 */
function addComponent(components: Record<string, unknown>, id: string, definition: unknown): void {
  if (id in components && JSON.stringify(components[id]) !== JSON.stringify(definition)) {
    throw new Error(`Two different schemas share the OpenAPI component id '${id}'`);
  }
  components[id] = definition;
}
