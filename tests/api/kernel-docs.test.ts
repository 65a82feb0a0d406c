import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { operations } from '../../src/registry.js';

/** The API document is generated from the operation table, so it is checked against the table itself. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

describe('the OpenAPI document', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await app.rest('GET', '/api/docs/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });

  test('when fetched, then it is OpenAPI 3.1 with this server as its base URL', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.servers).toEqual([{ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) }]);
  });

  test('when compared with the registry, then every operation is listed under its path and method with operationId = its name', () => {
    for (const op of operations) {
      const entry = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect({ operation: op.name, operationId: entry?.operationId }).toEqual({ operation: op.name, operationId: op.name });
    }
  });

  test('when compared with the registry, then it lists no operation the registry does not have', () => {
    const listed = Object.values(doc.paths).flatMap((methods: any) => Object.values(methods).map((entry: any) => entry.operationId));
    expect(listed.sort()).toEqual(operations.map((op) => op.name).sort());
  });

  test('when the registry is read, then operation names are unique and no two operations answer the same route', () => {
    const names = operations.map((op) => op.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    // Express serves both slash forms and does not care about parameter names: `/x/{id}` and `/x/{slug}/` collide.
    const route = (method: string, path: string) => `${method} ${path.replace(/\{\w+\}/g, '{}').replace(/\/$/, '')}`;
    const routes = operations.map((op) => route(op.method, op.path));
    expect(routes.filter((r, i) => routes.indexOf(r) !== i)).toEqual([]);
  });

  test('when an operation has path parameters, then the document declares each as a required path parameter', () => {
    for (const op of operations) {
      const entry = doc.paths[op.path][op.method.toLowerCase()];
      for (const [, name] of op.path.matchAll(/\{(\w+)\}/g)) {
        expect(entry.parameters).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
    }
  });
});

describe('the docs page', () => {
  test('when /api/docs/ is opened, then an HTML page is served whose scripts and stylesheets all load', async () => {
    const page = await app.http().get('/api/docs/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const assets = [...page.text.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const asset of assets) {
      const res = await app.http().get(asset);
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
      expect(res.headers['content-type']).toMatch(asset.endsWith('.css') ? /text\/css/ : /javascript/);
      expect(Number(res.headers['content-length'] ?? res.text.length)).toBeGreaterThan(0);
    }
  });

  test('when the page initialises, then it points the viewer at the served OpenAPI document', async () => {
    const init = await app.http().get('/api/docs/init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('/api/docs/openapi.json');
  });

  test('when /api/docs is opened without the slash, then the same page is served', async () => {
    const res = await app.http().get('/api/docs');
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
  });
});
