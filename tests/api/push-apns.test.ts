import { createApnsSender } from '../../src/modules/push/senders/apns.js';
import type { PushDevice, PushMessage, PushSender } from '../../src/modules/push/push-sender.js';
import { startApnsStandin, type ApnsStandin } from '../helpers/push-apns-standin.js';

/**
 * The APNs sender against the APNs stand-in (tests/helpers/push-apns-standin.ts): HTTP/2 over TLS with a test CA,
 * the ES256 provider token verified against the key's public half, apns-topic and apns-push-type checked.
 */
const TOKEN = 'a1'.repeat(32);
const device = (token = TOKEN, environment: 'production' | 'sandbox' = 'production'): PushDevice => ({
  id: '00000000-0000-4000-8000-000000000002',
  kind: 'apns',
  endpoint: null,
  keys: null,
  token,
  environment,
  locale: 'en',
});
const message = (over: Partial<PushMessage> = {}): PushMessage => ({
  payload: {
    notification_id: '00000000-0000-4000-8000-0000000000aa',
    notification_type: 'post_like',
    title: 'Ana and 4 others liked your post',
    body: 'Free tomatoes on Elm Street',
    target_type: 'post',
    target_id: '00000000-0000-4000-8000-0000000000bb',
    unread_count: 7,
    created_at: '2026-11-27T12:00:00.000Z',
  },
  collapseId: 'post_like-xyz',
  ttlSeconds: 3600,
  urgency: 'normal',
  ...over,
});

let apns: ApnsStandin;
const senders: PushSender[] = [];
beforeAll(async () => {
  apns = await startApnsStandin();
});
afterAll(async () => {
  await apns.close();
});
beforeEach(() => {
  apns.pushes.length = 0;
  apns.refused.length = 0;
  apns.unregistered.clear();
  apns.nextAnswers.length = 0;
  apns.expireTokensIssuedBefore = 0;
});
afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close?.()));
});

function sender(over: Record<string, string | undefined> = {}, now?: () => number): PushSender {
  const created = createApnsSender(
    { APNS_KEY_FILE: apns.keyFile, APNS_KEY_ID: apns.keyId, APNS_TEAM_ID: apns.teamId, APNS_TOPIC: apns.topic, APNS_ENDPOINT: apns.origin, APNS_CA_FILE: apns.caFile, ...over },
    undefined,
    { now },
  );
  senders.push(created);
  return created;
}

describe('APNs sender', () => {
  test('when a setting is missing or the key file unreadable, then APNs is not configured', () => {
    expect(sender({ APNS_TOPIC: undefined }).configured()).toBe(false);
    expect(sender({ APNS_KEY_FILE: '/nonexistent/AuthKey.p8' }).configured()).toBe(false);
    expect(sender().configured()).toBe(true);
  });

  test('when a push is sent, then APNs verified the provider token and got the alert, badge, topic, priority, expiry and collapse id', async () => {
    const before = Math.floor(Date.now() / 1000);
    expect(await sender().send(device(), message())).toEqual({ outcome: 'sent', status: 200 });
    expect(apns.refused).toEqual([]);
    const [push] = apns.pushes;
    expect(push.deviceToken).toBe(TOKEN);
    expect(push.headers).toMatchObject({ 'apns-topic': apns.topic, 'apns-push-type': 'alert', 'apns-priority': '5', 'apns-collapse-id': 'post_like-xyz' });
    expect(Number(push.headers['apns-expiration'])).toBeGreaterThanOrEqual(before + 3600);
    expect(Number(push.headers['apns-expiration'])).toBeLessThanOrEqual(before + 3602);
    expect(push.body).toEqual({
      aps: { alert: { title: 'Ana and 4 others liked your post', body: 'Free tomatoes on Elm Street' }, badge: 7, 'thread-id': 'post_like' },
      ...message().payload,
    });
  });

  test('when a message is urgent, then it goes with priority 10 and a sound', async () => {
    await sender().send(device(), message({ urgency: 'high' }));
    expect(apns.pushes[0].headers['apns-priority']).toBe('10');
    expect(apns.pushes[0].body.aps.sound).toBe('default');
  });

  test('when the payload takes its full 3,000 bytes, then the shown body is cut to keep the push under 4 KB and the payload stays whole', async () => {
    const big = message();
    big.payload = { ...big.payload, body: '€'.repeat(900) }; // 2,700 bytes
    expect(Buffer.byteLength(JSON.stringify(big.payload))).toBeLessThanOrEqual(3000);
    expect(await sender().send(device(), big)).toEqual({ outcome: 'sent', status: 200 });
    const [push] = apns.pushes;
    expect(push.body.body).toBe(big.payload.body);
    expect(push.body.aps.alert.body.endsWith('…')).toBe(true);
    expect(big.payload.body.startsWith(push.body.aps.alert.body.slice(0, -1))).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(push.body))).toBeLessThanOrEqual(4096);
  });

  test('when many pushes go out, then they share one HTTP/2 connection and one provider token', async () => {
    const opened = apns.connections();
    const apnsSender = sender();
    const results = await Promise.all(Array.from({ length: 20 }, () => apnsSender.send(device(), message())));
    expect(results.every((r) => r.outcome === 'sent')).toBe(true);
    expect(apns.connections() - opened).toBe(1);
    expect(new Set(apns.pushes.map((p) => p.providerToken)).size).toBe(1);
  });

  test('when APNs takes only 2 streams at once on a connection, then the other pushes wait for a stream and none is refused', async () => {
    const narrow = await startApnsStandin({ like: apns, maxConcurrentStreams: 2 });
    try {
      const narrowSender = sender({ APNS_ENDPOINT: narrow.origin, APNS_CA_FILE: narrow.caFile });
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => narrowSender.send(device(i.toString(16).padStart(64, '0')), message())));
      expect(results.filter((r) => r.outcome !== 'sent')).toEqual([]);
      expect(narrow.pushes).toHaveLength(40);
      expect(narrow.connections()).toBe(1);
    } finally {
      await narrow.close();
    }
  });

  test('when the provider token is younger than 50 minutes, then it is reused; from 50 minutes on, a new one is made', async () => {
    // The stand-in refuses a token from the future: the sender's clock starts in the past instead.
    let clock = Date.now() - 45 * 60_000;
    const reusing = sender({}, () => clock);
    await reusing.send(device(), message());
    clock = Date.now();
    await reusing.send(device(), message());
    expect(new Set(apns.pushes.map((p) => p.providerToken)).size).toBe(1);

    apns.pushes.length = 0;
    clock = Date.now() - 55 * 60_000;
    const renewing = sender({}, () => clock);
    await renewing.send(device(), message());
    clock = Date.now();
    await renewing.send(device(), message());
    expect(new Set(apns.pushes.map((p) => p.providerToken)).size).toBe(2);
    expect(apns.refused).toEqual([]);
  });

  test('when APNs answers ExpiredProviderToken for a token at least 20 minutes old, then a new token is made and the push goes through', async () => {
    let clock = Date.now() - 30 * 60_000;
    const apnsSender = sender({}, () => clock);
    await apnsSender.send(device(), message()); // a token issued "30 minutes ago"
    clock = Date.now();
    apns.expireTokensIssuedBefore = Math.floor(Date.now() / 1000) - 60;
    expect(await apnsSender.send(device(), message())).toEqual({ outcome: 'sent', status: 200 });
    expect(apns.refused).toEqual([{ status: 403, reason: 'ExpiredProviderToken' }]);
    expect(new Set(apns.pushes.map((p) => p.providerToken)).size).toBe(2);
  });

  test('when the device is unregistered (410) or its token is bad (400 BadDeviceToken), then the device is gone', async () => {
    apns.unregistered.add(TOKEN);
    expect(await sender().send(device(), message())).toEqual({ outcome: 'gone', status: 410, reason: 'Unregistered' });
    expect(await sender().send(device('abcd'), message())).toEqual({ outcome: 'gone', status: 400, reason: 'BadDeviceToken' });
  });

  test('when APNs answers 429 or 503, then the push is retried, after Retry-After when given; another 400 fails and keeps the device', async () => {
    apns.nextAnswers.push({ status: 429, reason: 'TooManyRequests', retryAfter: '12' }, { status: 503, reason: 'ServiceUnavailable' }, { status: 400, reason: 'BadCollapseId' });
    const apnsSender = sender();
    expect(await apnsSender.send(device(), message())).toEqual({ outcome: 'retry', status: 429, reason: 'TooManyRequests', retryAfterMs: 12_000 });
    expect(await apnsSender.send(device(), message())).toEqual({ outcome: 'retry', status: 503, reason: 'ServiceUnavailable' });
    expect(await apnsSender.send(device(), message())).toEqual({ outcome: 'failed', status: 400, reason: 'BadCollapseId' });
  });

  test('when the topic is not the key\'s app, then APNs refuses it (TopicDisallowed) and the push fails', async () => {
    expect(await sender({ APNS_TOPIC: 'org.someone.else' }).send(device(), message())).toEqual({ outcome: 'failed', status: 400, reason: 'TopicDisallowed' });
  });

  test('when the key is not the one APNs knows, then the provider token is refused (InvalidProviderToken)', async () => {
    expect(await sender({ APNS_KEY_ID: 'OTHERKEY00' }).send(device(), message())).toEqual({ outcome: 'failed', status: 403, reason: 'InvalidProviderToken' });
  });

  test('when the server certificate is not from a trusted CA, then nothing is sent', async () => {
    expect(await sender({ APNS_CA_FILE: undefined }).send(device(), message())).toMatchObject({ outcome: 'retry', status: null });
    expect(apns.pushes).toEqual([]);
  });

  test('when devices are in both environments, then each goes to its own origin', async () => {
    const sandbox = await startApnsStandin({ like: apns });
    try {
      const both = createApnsSender(
        { APNS_KEY_FILE: apns.keyFile, APNS_KEY_ID: apns.keyId, APNS_TEAM_ID: apns.teamId, APNS_TOPIC: apns.topic, APNS_ENDPOINT: undefined, APNS_CA_FILE: sandbox.caFile },
        undefined,
        { origins: { production: apns.origin, sandbox: sandbox.origin } },
      );
      senders.push(both);
      expect(await both.send(device(TOKEN, 'production'), message())).toEqual({ outcome: 'sent', status: 200 });
      expect(await both.send(device('b2'.repeat(32), 'sandbox'), message())).toEqual({ outcome: 'sent', status: 200 });
      expect(apns.pushes.map((p) => p.deviceToken)).toEqual([TOKEN]);
      expect(sandbox.pushes.map((p) => p.deviceToken)).toEqual(['b2'.repeat(32)]);
    } finally {
      await sandbox.close();
    }
  });
});
