import { z } from 'zod';
import type { Operation } from '../core/operation.js';
import { zBadRequest, zDetailError } from '../core/response-schemas.js';
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
      for (const [name, s] of Object.entries(rest)) parameters.push({ name, in: 'query', required: required.has(name), schema: s });
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
      responses: {
        ...Object.fromEntries(
          Object.entries(op.responses ?? {}).map(([status, schema]) => [status, { description: 'Success', content: { 'application/json': { schema: responseSchema(schema!) } } }]),
        ),
        ...(op.responses ? {} : { default: { description: 'The operation result; errors in the contract formats ({field: [message]}, {detail}, {error}).' } }),
        400: errorResponse('Invalid input', zBadRequest),
        ...(op.auth !== 'public' ? { 401: errorResponse('No valid access token', zDetailError) } : {}),
        ...(op.auth === 'staff' || op.auth === 'admin' ? { 403: errorResponse('The caller lacks the rights', zDetailError) } : {}),
        ...(pathParams.length ? { 404: errorResponse('No such resource', zDetailError) } : {}),
        ...(effectiveRateLimits(op).length ? { 429: { ...errorResponse('Rate limit spent', zDetailError), headers: { 'Retry-After': { schema: { type: 'integer' } } } } } : {}),
      },
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
  Object.assign(components, $defs ?? {});
  const id = schema.meta()?.id;
  if (typeof id === 'string' && !rest.$ref) {
    components[id] = rest;
    return { $ref: `#/components/schemas/${id}` };
  }
  return rest;
}
