import { jest } from '@jest/globals';
import { operations } from '../../src/registry.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { adminEnv, aLocation } from '../builders/locations.js';
import type { TestUser } from '../builders/users.js';
import { aNeighbourhood } from '../builders/posts.js';
import { aReadWorld, reads, type ReadWorld } from '../helpers/operation-reads.js';
import { writes } from '../helpers/operation-writes.js';
import { PNG_1X1 } from '../helpers/images.js';
import { sql } from '../helpers/sql.js';

/**
 * Issue 31, "A NUL byte is a 500": PostgreSQL stores no U+0000 in text or jsonb, and a fuzzer found a field that let
 * one through to a jsonb column (500). The operation runner now refuses a NUL anywhere in any input, once, before
 * any rule or handler: 400 {field: ['Null characters are not allowed.']}, the same on REST and the socket, nothing
 * written. Every operation of the table is fed its own case with a NUL in every text it sends.
 */
jest.setTimeout(300_000);

const NUL_ERROR = ['Null characters are not allowed.'];
const ADMIN = adminEnv();
let app: TestApp;
let admin: TestUser;
beforeAll(async () => {
  // Rate limits off: the hostile inputs must reach the runner rather than the limiter.
  app = await startTestApp({ ...ADMIN, RATE_LIMITS: 'off', WEBHOOK_ALLOW_PRIVATE_ENDPOINTS: 'true' });
  const login = await app.rest('POST', '/api/auth/login/', { body: { username: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD } });
  admin = { id: login.body.user.id, username: login.body.user.username, email: ADMIN.ADMIN_EMAIL, password: ADMIN.ADMIN_PASSWORD, token: login.body.access_token, refresh: login.body.refresh_token, body: login.body.user };
});
afterAll(async () => {
  await app?.stop();
});

/** The input with a NUL inside every string at any depth, and the dotted names of the fields so changed. */
function poisoned(input: Record<string, unknown>): { input: Record<string, unknown>; fields: string[] } {
  const fields: string[] = [];
  const walk = (value: unknown, path: string[]): unknown => {
    if (typeof value === 'string') {
      fields.push(path.join('.'));
      return `${value.slice(0, 1)}\u0000${value.slice(1)}`;
    }
    if (Array.isArray(value)) return value.map((v, i) => walk(v, [...path, String(i)]));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, [...path, k])]));
    return value;
  };
  const out = walk(input, []) as Record<string, unknown>;
  // A case that sends no text at all (a list with no filter) still gets one: a NUL is refused wherever it is.
  if (!fields.length) {
    out.note = 'a\u0000b';
    fields.push('note');
  }
  return { input: out, fields: fields.sort() };
}

/** The call as a REST client writes it: path parameters in the path, the rest in the query (GET) or the body. */
async function overRest(name: string, as: TestUser | null, input: Record<string, unknown>) {
  const op = operations.find((o) => o.name === name)!;
  const rest = { ...input };
  const path = op.path.replace(/\{(\w+)\}/g, (_m, key: string) => {
    const value = rest[key];
    delete rest[key];
    return encodeURIComponent(String(value));
  });
  return app.rest(op.method, path, { token: as?.token, ...(op.method === 'GET' ? { query: rest } : { body: rest }) });
}

const expected = (fields: string[]) => ({ status: 400, body: Object.fromEntries(fields.map((f) => [f, NUL_ERROR])) });

test('when locations.flag_for_review gets a reason holding a NUL (a jsonb column), then it is 400 naming reason on both transports, and nothing is flagged', async () => {
  const place = await aLocation(app);
  const [resident] = place.residents;
  const body = { reason: 'wrong\u0000name' };
  const rest = await app.rest('POST', `/api/locations/locations/${place.id}/flag_for_review/`, { token: resident.token, body });
  expect({ status: rest.status, body: rest.body }).toEqual({ status: 400, body: { reason: NUL_ERROR } });
  expect(await app.emit('locations.flag_for_review', { location_id: place.id, ...body }, { token: resident.token })).toEqual({ status: 400, body: { reason: NUL_ERROR } });
  const [row] = await sql<{ needs_verification: boolean }>('SELECT needs_verification FROM locations WHERE id = $1', [place.id]);
  expect(row.needs_verification).toBe(false);
});

describe('every operation of the table, with a NUL in every text it sends', () => {
  let world: ReadWorld;
  beforeAll(async () => {
    world = await aReadWorld(app, admin);
  });

  test('when the table is listed, then every operation has a case (a read or a write)', () => {
    const covered = new Set([...Object.keys(reads), ...Object.keys(writes)]);
    expect(operations.map((o) => o.name).filter((name) => !covered.has(name))).toEqual([]);
  });

  test.each(Object.keys(reads))('when the read %s gets a NUL in each text, then it is 400 naming each field, on REST and the socket alike', async (name) => {
    const { as, input: clean } = reads[name](world);
    const { input, fields } = poisoned(clean);
    const rest = await overRest(name, as, input);
    const socket = await app.emit(name, input, { token: as?.token });
    expect({ name, status: rest.status, body: rest.body }).toEqual({ name, ...expected(fields) });
    expect({ name, ...socket }).toEqual({ name, ...expected(fields) });
  });

  test.each(Object.keys(writes))('when the write %s gets a NUL in each text, then it is 400 naming each field, on REST and the socket alike', async (name) => {
    // Nothing is written on a refusal, so one case serves both transports.
    const { as, input: clean } = await writes[name](app, admin);
    const { input, fields } = poisoned(clean);
    const rest = await overRest(name, as, input);
    const socket = await app.emit(name, input, { token: as?.token });
    expect({ name, status: rest.status, body: rest.body }).toEqual({ name, ...expected(fields) });
    expect({ name, ...socket }).toEqual({ name, ...expected(fields) });
  });
});

describe('NUL where no plain text field is', () => {
  test('when a key of a JSON object (geocoded_data, kept as jsonb) holds a NUL, then the object is the field refused, on both transports', async () => {
    const place = await aNeighbourhood(app);
    const body = { latitude: 10.5, longitude: 20.5, geocoded_data: { address: { 'ci\u0000ty': 'Porto' } } };
    const rest = await app.rest('POST', '/api/locations/locations/smart_update/', { token: place.founder.token, body });
    expect({ status: rest.status, body: rest.body }).toEqual({ status: 400, body: { 'geocoded_data.address': NUL_ERROR } });
    expect(await app.emit('locations.smart_update', body, { token: place.founder.token })).toEqual({ status: 400, body: { 'geocoded_data.address': NUL_ERROR } });
  });

  test('when a multipart form field holds a NUL beside a file, then it is 400 naming the field and no post is made', async () => {
    const place = await aNeighbourhood(app);
    const res = await app
      .http()
      .post('/api/feed/posts/')
      .set('Authorization', `Bearer ${place.founder.token}`)
      .field('post_type', 'image')
      .field('content', 'dusk\u0000over the square')
      .attach('media', PNG_1X1, 'square.png');
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { content: NUL_ERROR } });
    expect(await sql('SELECT 1 FROM posts WHERE user_id = $1', [place.founder.id])).toEqual([]);
  });

  test('when a query string holds a NUL in a value and in a parameter name, then it is 400 naming the value\'s field, the name as non_field_errors', async () => {
    const place = await aNeighbourhood(app);
    const res = await app.http().get('/api/users/search/?query=ab%00c&na%00me=x').set('Authorization', `Bearer ${place.founder.token}`);
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { query: NUL_ERROR, non_field_errors: NUL_ERROR } });
  });
});
