import crypto from 'node:crypto';
import fs from 'node:fs';
import { createFcmSender } from '../../src/modules/push/senders/fcm.js';
import type { PushDevice, PushMessage } from '../../src/modules/push/push-sender.js';
import { startFcmStandin, type FcmStandin } from '../helpers/push-fcm-standin.js';

/**
 * The FCM sender against the FCM stand-in (tests/helpers/push-fcm-standin.ts), which verifies the service account's
 * RS256 assertion and checks each message as FCM's HTTP v1 API does.
 */
const device = (token: string): PushDevice => ({ id: '00000000-0000-4000-8000-000000000001', kind: 'fcm', endpoint: null, keys: null, token, environment: null, locale: null });
const message = (over: Partial<PushMessage> = {}): PushMessage => ({
  payload: {
    notification_id: '00000000-0000-4000-8000-0000000000aa',
    notification_type: 'new_message',
    title: 'Ana sent you a message',
    body: 'Are the tomatoes still there?',
    target_type: 'conversation',
    target_id: '00000000-0000-4000-8000-0000000000bb',
    unread_count: 3,
    created_at: '2026-11-27T12:00:00.000Z',
  },
  collapseId: 'new_message-abc',
  ttlSeconds: 86_400,
  urgency: 'high',
  ...over,
});

let fcm: FcmStandin;
beforeEach(async () => {
  fcm = await startFcmStandin();
});
afterEach(async () => {
  await fcm.close();
});
const sender = () => createFcmSender({ FCM_SERVICE_ACCOUNT: fcm.serviceAccountFile, FCM_ENDPOINT: fcm.endpoint });

describe('FCM sender', () => {
  test('when the service account is missing or unreadable, then FCM is not configured', () => {
    expect(createFcmSender({ FCM_SERVICE_ACCOUNT: undefined, FCM_ENDPOINT: undefined }).configured()).toBe(false);
    expect(createFcmSender({ FCM_SERVICE_ACCOUNT: '/nonexistent/sa.json', FCM_ENDPOINT: undefined }).configured()).toBe(false);
    expect(sender().configured()).toBe(true);
  });

  test('when a push is sent, then the token endpoint accepted the assertion and FCM got a v1 message with data, notification and android options', async () => {
    const result = await sender().send(device('fcm-token-1'), message());
    expect(result).toEqual({ outcome: 'sent', status: 200 });
    expect(fcm.refusedAssertions).toEqual([]);
    expect(fcm.refusedMessages).toEqual([]);
    expect(fcm.exchanges).toHaveLength(1);
    expect(fcm.exchanges[0].claims).toMatchObject({ iss: fcm.clientEmail, aud: fcm.tokenUri, scope: 'https://www.googleapis.com/auth/firebase.messaging' });
    const [got] = fcm.messages;
    expect(got.token).toBe('fcm-token-1');
    expect(got.message.data).toEqual({
      notification_id: '00000000-0000-4000-8000-0000000000aa',
      notification_type: 'new_message',
      title: 'Ana sent you a message',
      body: 'Are the tomatoes still there?',
      target_type: 'conversation',
      target_id: '00000000-0000-4000-8000-0000000000bb',
      unread_count: '3',
      created_at: '2026-11-27T12:00:00.000Z',
    });
    expect(got.message.notification).toEqual({ title: 'Ana sent you a message', body: 'Are the tomatoes still there?' });
    expect(got.message.android).toMatchObject({ collapse_key: 'new_message-abc', ttl: '86400s', priority: 'HIGH', notification: { tag: 'new_message-abc', notification_count: 3 } });
  });

  test('when the pipeline reduced the payload (previews off), then the message carries nothing more than it was given', async () => {
    const reduced = message({ urgency: 'normal', ttlSeconds: 600 });
    reduced.payload = { ...reduced.payload, title: 'New message', body: '' };
    await sender().send(device('fcm-token-1'), reduced);
    const text = JSON.stringify(fcm.messages[0].message);
    expect(text).not.toContain('tomatoes');
    expect(text).not.toContain('Ana');
    expect(fcm.messages[0].message.android).toMatchObject({ priority: 'NORMAL', ttl: '600s' });
  });

  test('when the payload takes its full 3,000 bytes, then the shown body is cut to keep the message under 4 KB and data stays whole', async () => {
    const big = message();
    big.payload = { ...big.payload, body: 'é'.repeat(1360) }; // 2,720 bytes: the payload is about 3,000
    expect(Buffer.byteLength(JSON.stringify(big.payload))).toBeLessThanOrEqual(3000);
    expect(await sender().send(device('t1'), big)).toEqual({ outcome: 'sent', status: 200 });
    expect(fcm.refusedMessages).toEqual([]);
    const got = fcm.messages[0].message;
    expect(got.data.body).toBe(big.payload.body);
    expect(got.notification.body.endsWith('…')).toBe(true);
    expect(big.payload.body.startsWith(got.notification.body.slice(0, -1))).toBe(true);
    expect(Buffer.byteLength(JSON.stringify({ data: got.data, notification: got.notification }))).toBeLessThanOrEqual(4000);
  });

  test('when several pushes go out, then one access token serves them all until shortly before it expires', async () => {
    fcm.tokenLifetimeSeconds = 301; // kept until five minutes before: one second
    const fcmSender = sender();
    await Promise.all([1, 2, 3].map((i) => fcmSender.send(device(`t${i}`), message())));
    expect(fcm.exchanges).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await fcmSender.send(device('t4'), message());
    expect(fcm.exchanges).toHaveLength(2);
    expect(new Set(fcm.messages.map((m) => m.bearer)).size).toBe(2);
    expect(fcm.messages.map((m) => m.bearer).slice(0, 3)).toEqual([fcm.messages[0].bearer, fcm.messages[0].bearer, fcm.messages[0].bearer]);
  });

  test('when FCM answers 401 (the token was revoked), then a new token is fetched once and the push goes through', async () => {
    const fcmSender = sender();
    await fcmSender.send(device('t1'), message());
    fcm.revokeAccessTokens();
    expect(await fcmSender.send(device('t2'), message())).toEqual({ outcome: 'sent', status: 200 });
    expect(fcm.exchanges).toHaveLength(2);
    expect(fcm.messages.map((m) => m.token)).toEqual(['t1', 't2']);
  });

  test('when the token is UNREGISTERED, then the device is gone', async () => {
    fcm.unregistered.add('dead-token');
    expect(await sender().send(device('dead-token'), message())).toMatchObject({ outcome: 'gone', status: 404, reason: expect.stringContaining('UNREGISTERED') });
  });

  test('when FCM answers 429 or 503, then the push is retried, after Retry-After when given', async () => {
    fcm.nextAnswers.push({ status: 429, retryAfter: '30' }, { status: 503 });
    const fcmSender = sender();
    expect(await fcmSender.send(device('t1'), message())).toMatchObject({ outcome: 'retry', status: 429, retryAfterMs: 30_000 });
    const second = await fcmSender.send(device('t1'), message());
    expect(second).toMatchObject({ outcome: 'retry', status: 503 });
    expect(second).not.toHaveProperty('retryAfterMs');
    expect(await fcmSender.send(device('t1'), message())).toEqual({ outcome: 'sent', status: 200 });
  });

  test('when a 400 is about the token, then the device is gone; when about the message, then the push fails and the device stays', async () => {
    expect(await sender().send(device('not a token!'), message())).toMatchObject({ outcome: 'gone', status: 400, reason: expect.stringContaining('not a valid FCM registration token') });
    fcm.nextAnswers.push({ status: 400, errorStatus: 'INVALID_ARGUMENT', errorCode: 'INVALID_ARGUMENT' });
    expect(await sender().send(device('t1'), message())).toMatchObject({ outcome: 'failed', status: 400 });
    expect(await sender().send(device(''), message())).toMatchObject({ outcome: 'failed', status: null });
  });

  test('when the assertion is signed with another key, then the token endpoint refuses it, nothing is sent and the push fails (no retry can pass)', async () => {
    const account = JSON.parse(fs.readFileSync(fcm.serviceAccountFile, 'utf8'));
    const other = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    const forged = `${fcm.serviceAccountFile}.forged.json`;
    fs.writeFileSync(forged, JSON.stringify({ ...account, private_key: other }));
    const result = await createFcmSender({ FCM_SERVICE_ACCOUNT: forged, FCM_ENDPOINT: fcm.endpoint }).send(device('t1'), message());
    expect(result).toMatchObject({ outcome: 'failed', status: 400 });
    expect(fcm.refusedAssertions).toEqual([expect.stringContaining('invalid signature')]);
    expect(fcm.messages).toEqual([]);
  });

  test('when the token endpoint or FCM cannot be reached, then the push is retried', async () => {
    const unreachable = createFcmSender({ FCM_SERVICE_ACCOUNT: fcm.serviceAccountFile, FCM_ENDPOINT: 'http://127.0.0.1:9' });
    expect(await unreachable.send(device('t1'), message())).toMatchObject({ outcome: 'retry', status: null });
  });
});
