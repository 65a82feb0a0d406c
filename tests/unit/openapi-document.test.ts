import { z } from 'zod';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { defineOperation, ok } from '../../src/core/operation.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { operations } from '../../src/registry.js';

/**
 * The document the service publishes is checked as a whole here (issue 34); every answer of every API test is
 * checked against it by tests/helpers/openapi-check.ts.
 */
const doc = openApiDocument(operations) as any;
const entries = Object.values(doc.paths).flatMap((methods: any) => Object.values(methods)) as any[];

describe('the published OpenAPI document', () => {
  test('when validated against the OpenAPI 3.1 schema by a validator nobody here wrote, then it is valid', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(doc)));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  test('when every operation is listed, then each declares a success body (none only `default`)', () => {
    expect(entries).toHaveLength(operations.length);
    const undocumented = entries.filter((e) => !Object.keys(e.responses).some((s) => /^2\d\d$/.test(s)) || 'default' in e.responses).map((e) => e.operationId);
    expect(undocumented).toEqual([]);
  });

  test('when every response schema is compiled by ajv (draft 2020-12), then each compiles and none is a schema no answer could match', () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'openapi', components: doc.components });
    const never = (schema: unknown) => schema === false || JSON.stringify(schema) === '{"not":{}}';
    for (const entry of entries) {
      for (const [status, response] of Object.entries(entry.responses) as [string, any][]) {
        // An operation producing another media type (the iCalendar feeds) documents its body under that type.
        const schema = response.content?.['application/json']?.schema ?? (response.content ? (Object.values(response.content)[0] as { schema?: unknown } | undefined)?.schema : undefined);
        if (!schema) {
          expect(`${entry.operationId} ${status}`).toMatch(/ 204$/);
          continue;
        }
        expect(never(schema)).toBe(false);
        expect(() => ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')))).not.toThrow();
      }
    }
    for (const [id, schema] of Object.entries(doc.components.schemas)) expect({ id, never: never(schema) }).toEqual({ id, never: false });
  });

  test('when two different schemas share one component id, then building the document fails instead of keeping the last', () => {
    const answering = (name: string, body: z.ZodType) =>
      defineOperation({ name, method: 'GET', path: `/api/${name}/`, auth: 'public', summary: name, tags: [], input: z.object({}), responses: { 200: body }, handler: async () => ok({}) });
    const joined = answering('joined', z.object({ message: z.string() }).meta({ id: 'Message' }));
    const chat = answering('chat', z.object({ id: z.string(), content: z.string() }).meta({ id: 'Message' }));
    expect(() => openApiDocument([joined, chat])).toThrow("Two different schemas share the OpenAPI component id 'Message'");
    // The same schema reached twice is one component, not a clash.
    expect(() => openApiDocument([joined, answering('again', z.object({ message: z.string() }).meta({ id: 'Message' }))])).not.toThrow();
  });

  test('when joining a community and reading a chat message are documented, then they name different components', () => {
    const join = doc.paths['/api/communities/communities/{community_id}/join/'].post.responses[200].content['application/json'].schema;
    expect(join).toEqual({ $ref: '#/components/schemas/CommunityMembershipMessage' });
    expect(Object.keys(doc.components.schemas.Message.properties)).toEqual(expect.arrayContaining(['conversation_id', 'content']));
  });

  test('when a signed-in operation is refused for its token, then the documented 401 body allows the code the service sends', () => {
    const unauthorized = doc.paths['/api/users/profile/'].get.responses[401].content['application/json'].schema;
    expect(unauthorized).toEqual({ $ref: '#/components/schemas/DetailError' });
    expect(doc.components.schemas.DetailError.properties).toHaveProperty('code');
    expect(doc.components.schemas.DetailError.required).toEqual(['detail']);
  });

  test('when a query parameter is a list, then it is one comma-separated value (explode: false), as the contract says', () => {
    const categories = doc.paths['/api/stores/products/by-location/'].get.parameters.find((p: any) => p.name === 'categories');
    expect(categories).toMatchObject({ in: 'query', style: 'form', explode: false, schema: { type: 'array' } });
  });

  test('when an operation is a delete, then its 204 has no content, and every operation documents 400, 413, 415, 500 and 503', () => {
    const remove = doc.paths['/api/feed/posts/{post_id}/'].delete.responses;
    expect(remove[204]).toEqual({ description: 'No content' });
    for (const entry of entries) expect(Object.keys(entry.responses)).toEqual(expect.arrayContaining(['400', '413', '415', '500', '503']));
  });
});
