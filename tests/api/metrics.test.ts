import { z } from 'zod';
import { startTestApp, nextEvent, type TestApp } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { aNotification } from '../builders/notifications.js';
import { defineOperation, ok } from '../../src/core/operation.js';
import { operations } from '../../src/registry.js';
import { runScheduledJob } from '../../src/jobs/index.js';

const METRICS_TOKEN = 'metrics-token-for-the-tests-0123456789';

/** A throwaway operation with a budget of one call a minute, to see a refusal counted. */
const limitedOp = defineOperation({
  name: 'test.metrics_limited',
  method: 'GET',
  path: '/api/test/metrics-limited/',
  auth: 'public',
  summary: 'test only',
  tags: ['test'],
  input: z.object({}),
  rateLimits: [{ name: 'ip', points: 1, durationSeconds: 60, key: 'ip' }],
  handler: async () => ok({ fine: true }),
});

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ METRICS_TOKEN }, { operations: [...operations, limitedOp] });
});
afterAll(async () => {
  await app.stop();
});

const scrape = async () => {
  const res = await app.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
};

/** The value of one sample line, e.g. `name{label="x"} 3`; undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  test('when no bearer token or a wrong one is sent, then 401 and no figures', async () => {
    const none = await app.http().get('/metrics');
    expect(none.status).toBe(401);
    expect(none.text).not.toContain('hyperlocal_');
    const wrong = await app.http().get('/metrics').set('Authorization', 'Bearer not-the-token');
    expect(wrong.status).toBe(401);
  });

  test('operations are timed per operation, transport and status class, over REST and the socket', async () => {
    const user = await aUser(app);
    await app.rest('GET', '/api/notifications/', { token: user.token });
    await app.rest('GET', '/api/notifications/');
    await app.emit('notifications.list', {}, { token: user.token });

    const text = await scrape();
    expect(sample(text, 'hyperlocal_operation_duration_seconds_count{operation="notifications.list",transport="http",status_class="2xx"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'hyperlocal_operation_duration_seconds_count{operation="notifications.list",transport="http",status_class="4xx"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'hyperlocal_operation_duration_seconds_count{operation="notifications.list",transport="socket",status_class="2xx"}')).toBe(1);
    expect(text).toMatch(/hyperlocal_operation_duration_seconds_bucket\{le="0\.005",operation="notifications\.list",transport="http",status_class="2xx"\}/);
  });

  test('rate-limit refusals are counted', async () => {
    expect((await app.rest('GET', '/api/test/metrics-limited/')).status).toBe(200);
    expect((await app.rest('GET', '/api/test/metrics-limited/')).status).toBe(429);
    expect((await app.emit('test.metrics_limited')).status).toBe(429);

    const text = await scrape();
    expect(sample(text, 'hyperlocal_rate_limit_refusals_total{operation="test.metrics_limited",transport="http"}')).toBe(1);
    expect(sample(text, 'hyperlocal_rate_limit_refusals_total{operation="test.metrics_limited",transport="socket"}')).toBe(1);
  });

  test('connected sockets, rooms and pushed events are reported', async () => {
    const user = await aUser(app);
    const socket = await app.socket(user.token);
    const before = sample(await scrape(), 'hyperlocal_realtime_events_pushed_total{event="notification.created"}') ?? 0;
    const pushed = nextEvent(socket, 'notification:created');
    await aNotification(app, user.id);
    await pushed;

    const text = await scrape();
    expect(sample(text, 'hyperlocal_sockets_connected')).toBeGreaterThanOrEqual(1);
    // At least the socket's own room and its user room.
    expect(sample(text, 'hyperlocal_socket_rooms')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'hyperlocal_realtime_events_pushed_total{event="notification.created"}')).toBe(before + 1);
    socket.close();
  });

  test('the database pool and the process are reported', async () => {
    const text = await scrape();
    expect(sample(text, 'hyperlocal_db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'hyperlocal_db_pool_connections{state="waiting"}')).toBe(0);
    expect(text).toContain('hyperlocal_process_resident_memory_bytes');
    expect(text).toContain('hyperlocal_nodejs_eventloop_lag_seconds');
  });

  test('job runs are counted by outcome, with their duration', async () => {
    await runScheduledJob({ name: 'metrics-test-ok', schedule: '* * * * *', run: async () => undefined });
    await runScheduledJob({ name: 'metrics-test-failing', schedule: '* * * * *', run: async () => Promise.reject(new Error('boom')) });

    const text = await scrape();
    expect(sample(text, 'hyperlocal_job_runs_total{job="metrics-test-ok",outcome="ok"}')).toBe(1);
    expect(sample(text, 'hyperlocal_job_runs_total{job="metrics-test-failing",outcome="failed"}')).toBe(1);
    expect(sample(text, 'hyperlocal_job_duration_seconds_count{job="metrics-test-ok"}')).toBe(1);
  });
});
