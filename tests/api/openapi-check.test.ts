import { z } from 'zod';
import { defineOperation, ok } from '../../src/core/operation.js';
import { forbidden } from '../../src/core/errors.js';
import { operations } from '../../src/registry.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The check every API test runs through (tests/helpers/openapi-check.ts) must itself catch a document that lies:
 * an undocumented key in a body, a wrong type, and an undocumented status, over REST and over the socket.
 */
const answering = (name: string, body: unknown) =>
  defineOperation({
    name,
    method: 'GET',
    path: `/api/test/${name}/`,
    auth: 'public',
    summary: name,
    tags: [],
    input: z.object({}),
    responses: { 200: z.object({ count: z.number().int() }) },
    handler: async () => ok(body),
  });

const honest = answering('honest', { count: 2 });
const extraKey = answering('extra_key', { count: 2, secret: 'leaked' });
const wrongType = answering('wrong_type', { count: '2' });
const refusing = defineOperation({ ...answering('refusing', {}), handler: async () => { throw forbidden(); } });

test('when every answer fits the document, then stopping the app passes', async () => {
  const app = await startTestApp({}, { operations: [...operations, honest] });
  expect((await app.rest('GET', '/api/test/honest/')).body).toEqual({ count: 2 });
  expect((await app.emit('honest', {})).body).toEqual({ count: 2 });
  await expect(app.stop()).resolves.toBeUndefined();
});

test('when answers have an undocumented key, a wrong type or an undocumented status, then stopping the app fails and names each', async () => {
  const app = await startTestApp({}, { operations: [...operations, extraKey, wrongType, refusing] });
  expect((await app.rest('GET', '/api/test/extra_key/')).status).toBe(200);
  expect((await app.emit('wrong_type', {})).status).toBe(200);
  expect((await app.rest('GET', '/api/test/refusing/')).status).toBe(403);
  const stopped = app.stop();
  await expect(stopped).rejects.toThrow(/extra_key 200 \(REST\): body does not match: .*must NOT have additional properties 'secret'/);
  await expect(stopped).rejects.toThrow(/wrong_type 200 \(socket\): body does not match: \/count must be integer/);
  await expect(stopped).rejects.toThrow(/refusing 403 \(REST\): status not documented/);
});
