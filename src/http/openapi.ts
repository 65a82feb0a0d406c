import { z } from 'zod';
import type { Operation } from '../core/operation.js';

/**
 * OpenAPI 3.1 generated from the operation table: one operation per route, operationId = the
 * operation's name, the zod input split into path parameters, query parameters (GET/DELETE) or a body.
 */
export function openApiDocument(operations: readonly Operation[], serverUrl?: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const schema = toJsonSchema(op.input);
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    const required = new Set((schema.required ?? []) as string[]);
    const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const parameters: unknown[] = pathParams.map((name) => ({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } }));
    const rest = Object.fromEntries(Object.entries(properties).filter(([name]) => !pathParams.includes(name)));
    const fileFields = op.files ?? [];
    let requestBody: unknown;
    if (op.method === 'GET' || op.method === 'DELETE') {
      for (const [name, s] of Object.entries(rest)) parameters.push({ name, in: 'query', required: required.has(name), schema: s });
    } else if (Object.keys(rest).length || fileFields.length) {
      const bodySchema = { type: 'object', properties: rest, required: [...required].filter((n) => n in rest) };
      const content: Record<string, unknown> = { 'application/json': { schema: bodySchema } };
      if (fileFields.length) {
        const multipartProps = { ...rest };
        for (const f of fileFields) multipartProps[f.name] = f.maxCount === 1 ? { type: 'string', format: 'binary' } : { type: 'array', items: { type: 'string', format: 'binary' } };
        content['multipart/form-data'] = { schema: { ...bodySchema, properties: multipartProps } };
      }
      requestBody = { required: bodySchema.required.length > 0, content };
    }
    const entry = {
      operationId: op.name,
      summary: op.summary,
      tags: op.tags,
      description: `Also served over Socket.IO as the event \`${op.name}\` (ack: {status, body}).${op.aliases?.length ? ` Also at ${op.aliases.join(', ')}.` : ''}`,
      security: op.auth === 'public' ? [] : op.auth === 'optional' ? [{}, { bearer: [] }] : [{ bearer: [] }],
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses: { default: { description: 'The operation result; errors in the contract formats ({field: [message]}, {detail}, {error}).' } },
    };
    (paths[op.path] ??= {})[op.method.toLowerCase()] = entry;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Hyperlocal social and local commerce API', version: '1.0.0' },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
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
