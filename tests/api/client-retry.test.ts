// @run-alone: it asserts that closing the client ends a waiting retry within 1 s (tests/runner/run-alone.mjs).
import { ApiError, createClient, type HyperlocalClient } from '@hyperlocal/client';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { eventuallyTrue } from '../helpers/client.js';

/**
 * "Not now" answers: a 429 or a 503 is waited out as the service asks (Retry-After over REST; the ack's
 * `retry_after`, or the throttle sentence, over the socket) and the call made again, up to the client's limits.
 * The socket's event budget is the service's own (3 a second here); the REST refusals come from the network in
 * front of the service (a proxy answering 503), played by the fetch the client is given.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ SOCKET_EVENTS_PER_SECOND: '3' });
});
const clients: HyperlocalClient[] = [];
afterAll(async () => {
  for (const client of clients) client.close();
  await app?.stop();
});

/** A fetch whose first `n` requests a proxy answers `status` with `Retry-After: retryAfter`. */
function refusingFetch(n: number, status: number, retryAfter: string) {
  const seen = { refused: 0, passed: 0 };
  const fetchImpl: typeof fetch = async (input, init) => {
    if (seen.refused < n) {
      seen.refused++;
      return new Response(JSON.stringify({ detail: 'Service temporarily unavailable, try again later.' }), { status, headers: { 'retry-after': retryAfter, 'content-type': 'application/json' } });
    }
    seen.passed++;
    return fetch(input, init);
  };
  return { fetchImpl, seen };
}

test('when calls on the socket go past the service\'s event budget, then each 429 is waited out and every call answers', async () => {
  const user = await aUser(app);
  // No pacing of its own: every event over the budget is refused by the service.
  const client = createClient({ baseUrl: app.url, transports: ['websocket'], eventsPerSecond: 100 });
  clients.push(client);
  expect(await eventuallyTrue(() => client.status === 'live', 10_000)).toBe(true);
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 9 }, () => client.call('users.get', { username: user.username }, { transport: 'socket' })));
  expect(answers.every((a) => a.username === user.username)).toBe(true);
  // 9 events at 3 a second: at least two more windows.
  expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
});

test('when a REST answer is 503 with Retry-After, then the call is made again after that wait and answers', async () => {
  const user = await aUser(app);
  const { fetchImpl, seen } = refusingFetch(1, 503, '1');
  const client = createClient({ baseUrl: app.url, realtime: false, fetch: fetchImpl });
  const started = Date.now();
  expect((await client.call('users.get', { username: user.username })).id).toBe(user.id);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  expect(seen).toEqual({ refused: 1, passed: 1 });
});

test('when the refusals outlast the retries, or the wait asked is over the limit, then the call rejects with the last answer', async () => {
  const user = await aUser(app);
  const many = refusingFetch(10, 429, '0');
  const client = createClient({ baseUrl: app.url, realtime: false, fetch: many.fetchImpl, retry: { maxRetries: 2 } });
  await expect(client.call('users.get', { username: user.username })).rejects.toMatchObject({ name: 'ApiError', status: 429 });
  expect(many.seen.refused).toBe(3);

  const long = refusingFetch(1, 503, '3600');
  const impatient = createClient({ baseUrl: app.url, realtime: false, fetch: long.fetchImpl, retry: { maxWaitSeconds: 30 } });
  const err = await impatient.call('users.get', { username: user.username }).catch((e) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect(err).toMatchObject({ status: 503, body: { detail: 'Service temporarily unavailable, try again later.' } });
});

test('when the client is closed while a call waits out a Retry-After, then the call rejects at once and nothing more is sent', async () => {
  const user = await aUser(app);
  const { fetchImpl, seen } = refusingFetch(1, 503, '30');
  const client = createClient({ baseUrl: app.url, realtime: false, fetch: fetchImpl });
  const call = client.call('users.get', { username: user.username }).catch((e) => e);
  while (seen.refused === 0) await new Promise((r) => setTimeout(r, 10));
  const closedAt = Date.now();
  client.close();
  expect(await call).toMatchObject({ name: 'ApiError', status: 503 });
  expect(Date.now() - closedAt).toBeLessThan(1000);
  await new Promise((r) => setTimeout(r, 100));
  expect(seen).toEqual({ refused: 1, passed: 0 });
});
