import { sql } from 'drizzle-orm';
import { eventually, startTestApp, type TestApp } from '../helpers/test-app.js';
import { startFcmStandin, type FcmStandin } from '../helpers/push-fcm-standin.js';
import { startApnsStandin, type ApnsStandin } from '../helpers/push-apns-standin.js';
import { aResidentOf, aPost } from '../builders/posts.js';
import type { TestUser } from '../builders/users.js';
import { platform } from '../../src/platform/index.js';
import { outboxWorker } from '../../src/platform/outbox.js';

/**
 * FCM and APNs end to end (DESIGN.md section 10; docs/push.md): the service configured with the FCM stand-in's
 * service account and the APNs stand-in's key and CA (tests/helpers/push-*-standin.ts, which verify the OAuth2
 * assertion and the provider token as Google and Apple do); a notification reaches both phones through the outbox,
 * and a token the push service calls unregistered removes its device.
 */
let app: TestApp;
let fcm: FcmStandin;
let apns: ApnsStandin;
const apnsToken = () => Array.from({ length: 32 }, () => Math.floor(Math.random() * 256).toString(16).padStart(2, '0')).join('');

beforeAll(async () => {
  fcm = await startFcmStandin();
  apns = await startApnsStandin();
  app = await startTestApp({
    FCM_SERVICE_ACCOUNT: fcm.serviceAccountFile,
    FCM_ENDPOINT: fcm.endpoint,
    APNS_KEY_FILE: apns.keyFile,
    APNS_KEY_ID: apns.keyId,
    APNS_TEAM_ID: apns.teamId,
    APNS_TOPIC: apns.topic,
    APNS_ENDPOINT: apns.origin,
    APNS_CA_FILE: apns.caFile,
  });
});
afterAll(async () => {
  await app.stop();
  await fcm.close();
  await apns.close();
});

async function aLikedPost(): Promise<{ ana: TestUser; bob: TestUser; like: () => Promise<void> }> {
  const ana = await aResidentOf(app);
  const place = { country: 'Postland', city: (await app.rest('GET', '/api/users/profile/', { token: ana.token })).body.location?.city } as any;
  const bob = await aResidentOf(app, place);
  const post = await aPost(app, ana);
  return {
    ana,
    bob,
    like: async () => {
      expect((await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: bob.token })).status).toBeLessThan(300);
    },
  };
}

const devicesOf = async (userId: string) =>
  (await platform.db.execute<{ kind: string; address: string }>(sql`SELECT kind, address FROM push_devices WHERE user_id = ${userId}::uuid ORDER BY kind`)).rows;

describe('FCM and APNs devices', () => {
  test('when FCM and APNs are configured, then their devices subscribe (201) over REST and over the socket', async () => {
    const { ana } = await aLikedPost();
    const rest = await app.rest('POST', '/api/push/subscriptions/', { token: ana.token, body: { kind: 'fcm', token: `fcm:rest-${ana.id}` } });
    expect(rest.status).toBe(201);
    expect(rest.body).toEqual({ id: expect.any(String), kind: 'fcm', created_at: expect.any(String), last_success_at: null });
    const socket = await app.emit('push.subscribe', { kind: 'apns', token: apnsToken(), environment: 'production', locale: 'en-GB' }, { token: ana.token });
    expect(socket.status).toBe(201);
    expect(socket.body.kind).toBe('apns');
  });

  test('when a neighbour likes a post, then the author\'s Android phone gets it through FCM and the iPhone through APNs, with the badge', async () => {
    const { ana, bob, like } = await aLikedPost();
    const fcmToken = `fcm:${ana.id}`;
    const iphone = apnsToken();
    expect((await app.rest('POST', '/api/push/subscriptions/', { token: ana.token, body: { kind: 'fcm', token: fcmToken } })).status).toBe(201);
    expect((await app.rest('POST', '/api/push/subscriptions/', { token: ana.token, body: { kind: 'apns', token: iphone, environment: 'production' } })).status).toBe(201);
    const fcmBefore = fcm.messages.length;
    const apnsBefore = apns.pushes.length;
    await like();
    await outboxWorker!.settle();
    const toAndroid = (await fcm.waitForMessages(fcmBefore + 1)).filter((m) => m.token === fcmToken);
    const toIphone = (await apns.waitForPushes(apnsBefore + 1)).filter((p) => p.deviceToken === iphone);
    expect(toAndroid).toHaveLength(1);
    expect(toIphone).toHaveLength(1);
    expect(fcm.refusedAssertions).toEqual([]);
    expect(fcm.refusedMessages).toEqual([]);

    const notes = (await app.rest('GET', '/api/notifications/', { token: ana.token })).body.results;
    const likeNote = notes.find((n: any) => n.notification_type === 'post_like');
    expect(toAndroid[0].message.data).toMatchObject({ notification_id: likeNote.id, notification_type: 'post_like', unread_count: '1' });
    expect(toAndroid[0].message.data.body).toContain(bob.username);
    expect(toAndroid[0].message.android).toMatchObject({ priority: 'NORMAL', collapse_key: expect.stringMatching(/^[A-Za-z0-9_-]{1,32}$/) });
    expect(toIphone[0].body).toMatchObject({ aps: { badge: 1, alert: { title: expect.any(String) } }, notification_id: likeNote.id });
    expect(toIphone[0].headers).toMatchObject({ 'apns-topic': apns.topic, 'apns-push-type': 'alert', 'apns-priority': '5' });
    expect(toIphone[0].headers['apns-collapse-id']).toBe(toAndroid[0].message.android.collapse_key);
    // The success is written once the push service answered.
    const succeeded = await eventually(async () => {
      const listed = await app.rest('GET', '/api/push/subscriptions/', { token: ana.token });
      return listed.body.results.length === 2 && listed.body.results.every((d: any) => d.last_success_at !== null);
    }, 10_000);
    expect(succeeded).toBe(true);
  });

  test('when FCM says UNREGISTERED and APNs says 410 Unregistered, then both devices are removed', async () => {
    const { ana, like } = await aLikedPost();
    const fcmToken = `fcm:dead-${ana.id}`;
    const iphone = apnsToken();
    fcm.unregistered.add(fcmToken);
    apns.unregistered.add(iphone);
    expect((await app.rest('POST', '/api/push/subscriptions/', { token: ana.token, body: { kind: 'fcm', token: fcmToken } })).status).toBe(201);
    expect((await app.rest('POST', '/api/push/subscriptions/', { token: ana.token, body: { kind: 'apns', token: iphone, environment: 'production' } })).status).toBe(201);
    expect(await devicesOf(ana.id)).toHaveLength(2);
    await like();
    await outboxWorker!.settle();
    expect(await devicesOf(ana.id)).toEqual([]);
    expect(apns.refused).toContainEqual({ status: 410, reason: 'Unregistered' });
    expect(fcm.messages.some((m) => m.token === fcmToken)).toBe(false);
  });
});
