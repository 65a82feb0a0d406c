import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aWebPushReceiver, subscriptionIdOf, type WebPushReceiver } from '../helpers/webpush-receiver.js';
import { aResident } from '../builders/locations.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { outboxWorker } from '../../src/platform/outbox.js';
import { pushHooks } from '../../src/modules/push/push.outbox.js';
import { createWebPushSender } from '../../src/modules/push/senders/webpush.js';
import type { PushDevice, PushMessage } from '../../src/modules/push/push-sender.js';
import webpush from 'web-push';

/**
 * A Web Push endpoint is a URL a stranger chose (DESIGN.md section 10): https to public addresses only, resolved and
 * checked at send time, the connection made to the address checked, no redirects, a timeout. Private ranges are
 * reached through a stubbed resolver, so no packet ever leaves loopback: a refused address is refused before any
 * connection.
 */
const vapid = { subject: 'mailto:ops@example.test', ...webpush.generateVAPIDKeys() };
let receiver: WebPushReceiver;

beforeEach(async () => {
  receiver = await aWebPushReceiver(vapid.publicKey);
});
afterEach(async () => {
  await receiver.close();
});

const message: PushMessage = {
  payload: { notification_id: 'n1', notification_type: 'general', title: 'New notification', body: 'Hi', target_type: null, target_id: null, unread_count: 1, created_at: new Date().toISOString() },
  collapseId: 'abc',
  ttlSeconds: 60,
  urgency: 'normal',
};
const deviceFor = (endpoint: string, keys = receiver.subscribe().keys): PushDevice => ({ id: 'd1', kind: 'webpush', endpoint, keys, token: null, environment: null, locale: null });

describe('the Web Push sender', () => {
  test('without PUSH_ALLOW_PRIVATE_ENDPOINTS: plain http, loopback, private, link-local and mapped addresses are refused before any connection', async () => {
    const resolved: string[] = [];
    const sender = createWebPushSender({
      vapid,
      allowPrivate: false,
      resolve: async (host) => {
        resolved.push(host);
        const answers: Record<string, string> = { 'ten.test': '10.1.2.3', 'home.test': '192.168.1.20', 'meta.test': '169.254.169.254', 'ula.test': 'fd00::1', 'mapped.test': '::ffff:127.0.0.1', 'cgnat.test': '100.64.0.9' };
        return [{ address: answers[host], family: answers[host].includes(':') ? 6 : 4 }];
      },
    });
    const sub = receiver.subscribe();
    const refused = [
      sub.endpoint, // http://127.0.0.1:port
      sub.endpoint.replace('http:', 'https:'),
      'https://[::1]:9/push/x',
      'https://ten.test/push/x',
      'https://home.test/push/x',
      'https://meta.test/push/x',
      'https://ula.test/push/x',
      'https://mapped.test/push/x',
      'https://cgnat.test/push/x',
      'https://user:pw@ten.test/push/x',
    ];
    for (const endpoint of refused) {
      const result = await sender.send(deviceFor(endpoint, sub.keys), message);
      expect(result).toMatchObject({ outcome: 'failed', status: null });
    }
    expect(resolved).toEqual(['ten.test', 'home.test', 'meta.test', 'ula.test', 'mapped.test', 'cgnat.test']);
    expect(receiver.received).toHaveLength(0);
    await sender.close?.();
  });

  test('the connection goes to the address checked, not to a second resolution (DNS rebinding): a name only the stub knows is reached', async () => {
    let lookups = 0;
    const sender = createWebPushSender({ vapid, allowPrivate: true, resolve: async () => (lookups++, [{ address: '127.0.0.1', family: 4 }]) });
    const sub = receiver.subscribe();
    const port = new URL(sub.endpoint).port;
    // `push.rebind.test` resolves nowhere in the system's DNS: the request can only arrive through the checked address.
    const result = await sender.send(deviceFor(`http://push.rebind.test:${port}/push/${subscriptionIdOf(sub.endpoint)}`, sub.keys), message);
    expect(result).toEqual({ outcome: 'sent', status: 201 });
    expect(lookups).toBe(1);
    expect(receiver.received[0].payload).toEqual(message.payload);
    expect(receiver.received[0].vapid.ok).toBe(false); // aud is the endpoint's origin (push.rebind.test), the stand-in expects its own
    await sender.close?.();
  });

  test('a redirect is not followed; a push service that never answers is a retry after the timeout; Retry-After is read', async () => {
    const sender = createWebPushSender({ vapid, allowPrivate: true, timeoutMs: 300 });
    const sub = receiver.subscribe();
    receiver.answer = () => ({ status: 307, headers: { location: 'http://127.0.0.1:9/elsewhere' } });
    expect(await sender.send(deviceFor(sub.endpoint, sub.keys), message)).toMatchObject({ outcome: 'failed', status: 307 });
    expect(receiver.received).toHaveLength(1);
    receiver.answer = () => 'hang';
    const started = Date.now();
    expect(await sender.send(deviceFor(sub.endpoint, sub.keys), message)).toMatchObject({ outcome: 'retry', status: null });
    expect(Date.now() - started).toBeLessThan(5000);
    receiver.answer = () => ({ status: 503, headers: { 'retry-after': '30' } });
    expect(await sender.send(deviceFor(sub.endpoint, sub.keys), message)).toMatchObject({ outcome: 'retry', status: 503, retryAfterMs: 30_000 });
    receiver.answer = () => 404;
    expect(await sender.send(deviceFor(sub.endpoint, sub.keys), message)).toMatchObject({ outcome: 'gone', status: 404 });
    await sender.close?.();
  });
});

describe('the service without PUSH_ALLOW_PRIVATE_ENDPOINTS', () => {
  let app: TestApp;
  const outcomes: Array<{ deviceId: string; outcome: string; reason?: string }> = [];
  beforeAll(async () => {
    app = await startTestApp();
    pushHooks.onOutcome = (e) => outcomes.push(e);
  });
  afterAll(async () => {
    delete pushHooks.onOutcome;
    await app.stop();
  });

  test('an http endpoint is 400 at subscription; an https one on loopback is accepted but never reached: refused at send time, the device kept', async () => {
    const ana = await aResident(app);
    const bob = await aResident(app);
    const key = (await app.rest('GET', '/api/push/vapid-public-key/')).body.public_key;
    receiver.applicationServerKey = key;
    const sub = receiver.subscribe();
    const http = await app.rest('POST', '/api/push/subscriptions/', { token: bob.token, body: { kind: 'webpush', ...sub } });
    expect(http.status).toBe(400);
    expect(http.body.endpoint[0]).toMatch(/https/);
    expect(await app.emit('push.subscribe', { kind: 'webpush', ...sub }, { token: bob.token })).toEqual({ status: 400, body: http.body });

    const https = await app.rest('POST', '/api/push/subscriptions/', { token: bob.token, body: { kind: 'webpush', ...sub, endpoint: sub.endpoint.replace('http:', 'https:') } });
    expect(https.status).toBe(201);
    await aMessage(app, ana, (await aConversation(app, ana, bob)).id);
    await outboxWorker!.settle();
    expect(outcomes).toContainEqual(expect.objectContaining({ deviceId: https.body.id, outcome: 'failed', reason: expect.stringMatching(/not public/) }));
    expect(receiver.received).toHaveLength(0);
    expect((await app.rest('GET', '/api/push/subscriptions/', { token: bob.token })).body.count).toBe(1);
  });
});
