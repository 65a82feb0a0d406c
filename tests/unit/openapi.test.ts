import { z } from 'zod';
import { defineOperation, ok } from '../../src/core/operation.js';
import { zUuid } from '../../src/core/validation.js';
import { imageField, zImageFile } from '../../src/core/uploads.js';
import { openApiDocument } from '../../src/http/openapi.js';

const handler = async () => ok({});

const listComments = defineOperation({
  name: 'comments.list',
  method: 'GET',
  path: '/api/posts/posts/{post_id}/comments/',
  auth: 'optional',
  summary: 'List comments',
  tags: ['comments'],
  input: z.object({ post_id: zUuid(), page: z.number().optional(), sort: z.enum(['new', 'top']) }),
  handler,
});

const updateProfile = defineOperation({
  name: 'profiles.update',
  method: 'PATCH',
  path: '/api/profiles/{username}/',
  auth: 'user',
  summary: 'Update a profile',
  tags: ['profiles'],
  files: [imageField('avatar'), imageField('gallery', 5)],
  input: z.object({ username: z.string(), display_name: z.string(), bio: z.string().optional(), avatar: zImageFile().optional() }),
  handler,
});

const ping = defineOperation({ name: 'health.ping', method: 'POST', path: '/api/ping/', auth: 'public', summary: 'Ping', tags: [], input: z.object({}), handler });

const doc = openApiDocument([listComments, updateProfile, ping], 'https://api.example.test') as any;

describe('openApiDocument', () => {
  test('when generated, then it is OpenAPI 3.1 with the given server and a bearer scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://api.example.test' }]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  test('when an operation is listed, then its operationId is the operation name, under its contract path and method', () => {
    expect(doc.paths['/api/posts/posts/{post_id}/comments/'].get.operationId).toBe('comments.list');
    expect(doc.paths['/api/profiles/{username}/'].patch.operationId).toBe('profiles.update');
    expect(doc.paths['/api/ping/'].post.operationId).toBe('health.ping');
  });

  test('when a path has a placeholder, then it is a required path parameter', () => {
    const params = doc.paths['/api/posts/posts/{post_id}/comments/'].get.parameters;
    expect(params).toContainEqual(expect.objectContaining({ name: 'post_id', in: 'path', required: true }));
    expect(doc.paths['/api/profiles/{username}/'].patch.parameters).toEqual([expect.objectContaining({ name: 'username', in: 'path', required: true })]);
  });

  test('when the method is GET, then the other fields are query parameters and there is no body', () => {
    const op = doc.paths['/api/posts/posts/{post_id}/comments/'].get;
    expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'page', in: 'query', required: false }));
    expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'sort', in: 'query', required: true, schema: expect.objectContaining({ enum: ['new', 'top'] }) }));
    expect(op.requestBody).toBeUndefined();
  });

  test('when the method has a body, then the non-path fields are the JSON body with their required list', () => {
    const body = doc.paths['/api/profiles/{username}/'].patch.requestBody;
    const json = body.content['application/json'].schema;
    expect(Object.keys(json.properties).sort()).toEqual(['avatar', 'bio', 'display_name']);
    expect(json.required).toEqual(['display_name']);
    expect(body.required).toBe(true);
  });

  test('when an operation takes files, then a multipart body lists them as binary (arrays for several, with their most) with their descriptions', () => {
    const multipart = doc.paths['/api/profiles/{username}/'].patch.requestBody.content['multipart/form-data'].schema;
    // A file field keeps its own description (what is accepted, what is done to it); a list says how many it takes.
    expect(multipart.properties.avatar).toEqual({ type: 'string', format: 'binary', description: expect.stringMatching(/^An image file: JPEG, PNG, WebP or GIF/) });
    expect(multipart.properties.gallery).toEqual({ type: 'array', items: { type: 'string', format: 'binary' }, maxItems: 5 });
    expect(multipart.properties.display_name).toBeDefined();
  });

  test('when an operation takes no input, then it has no request body', () => {
    expect(doc.paths['/api/ping/'].post.requestBody).toBeUndefined();
  });

  test('when the auth rule differs, then security says so (public none, optional either, user bearer)', () => {
    expect(doc.paths['/api/ping/'].post.security).toEqual([]);
    expect(doc.paths['/api/posts/posts/{post_id}/comments/'].get.security).toEqual([{}, { bearer: [] }]);
    expect(doc.paths['/api/profiles/{username}/'].patch.security).toEqual([{ bearer: [] }]);
  });
});
