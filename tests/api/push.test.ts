import { sql } from 'drizzle-orm';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aWebPushReceiver, subscriptionIdOf, type BrowserSubscription, type ReceivedPush, type WebPushReceiver } from '../helpers/webpush-receiver.js';
import type { TestUser } from '../builders/users.js';
import { aResident } from '../builders/locations.js';
import { aPost, aResidentOf, type Neighbourhood } from '../builders/posts.js';
import { aConversation, aMessage } from '../builders/messages.js';
import { aCommunity, joinCommunity } from '../builders/communities.js';
import { aBlock, aMute } from '../builders/safety.js';
import { platform } from '../../src/platform/index.js';
import { outboxClock, outboxWorker } from '../../src/platform/outbox.js';
import { pushHooks, pushReads } from '../../src/modules/push/push.outbox.js';
import { flushSuccesses } from '../../src/modules/push/push-successes.js';
import { collapseId } from '../../src/modules/push/push.payload.js';

/**
 * Push (DESIGN.md section 10; docs/push.md), end to end over both transports: devices, the VAPID key, preferences,
 * badges, and every notification pushed through the outbox to a Web Push service stand-in on loopback that verifies
 * the VAPID token against the service's public key and decrypts each push with `http_ece` as a browser would.
 * PUSH_ALLOW_PRIVATE_ENDPOINTS=true lets the loopback stand-in in (plain http); the address rules without it are in
 * tests/api/push-addresses.test.ts.
 */
let app: TestApp;
let push: WebPushReceiver;
let vapidKey: string;
const realNow = outboxClock.now;
const outcomes: Array<{ notificationId: string; deviceId: string; outcome: string; reason?: string }> = [];

beforeAll(async () => {
  app = await startTestApp({ PUSH_ALLOW_PRIVATE_ENDPOINTS: 'true' });
  vapidKey = (await app.rest('GET', '/api/push/vapid-public-key/')).body.public_key;
  pushHooks.onOutcome = (event) => outcomes.push(event);
});
beforeEach(async () => {
  push = await aWebPushReceiver(vapidKey);
});
afterEach(async () => {
  outboxClock.now = realNow;
  await push.close();
});
afterAll(async () => {
  delete pushHooks.onOutcome;
  await app.stop();
});

const settle = () => outboxWorker!.settle();

async function aDevice(user: TestUser, sub: BrowserSubscription = push.subscribe()): Promise<{ id: string; sub: BrowserSubscription }> {
  const res = await app.rest('POST', '/api/push/subscriptions/', { token: user.token, body: { kind: 'webpush', ...sub } });
  expect(res.status).toBe(201);
  return { id: res.body.id, sub };
}

const pushesTo = (sub: BrowserSubscription) => (p: ReceivedPush) => p.subscriptionId === subscriptionIdOf(sub.endpoint);

async function neighbours(): Promise<{ place: Neighbourhood; ana: TestUser; bob: TestUser; cara: TestUser }> {
  const ana = await aResidentOf(app);
  const place = { country: 'Postland', city: (await app.rest('GET', '/api/users/profile/', { token: ana.token })).body.location?.city } as Neighbourhood;
  const bob = await aResidentOf(app, place);
  const cara = await aResidentOf(app, place);
  return { place, ana, bob, cara };
}

describe('devices', () => {
  test('the VAPID public key is a P-256 point, the same over REST and the socket, and anonymous callers get it', async () => {
    const rest = await app.rest('GET', '/api/push/vapid-public-key/');
    expect(rest.status).toBe(200);
    expect(Buffer.from(rest.body.public_key, 'base64url')).toHaveLength(65);
    expect(await app.emit('push.vapid_public_key', {})).toEqual({ status: 200, body: rest.body });
  });

  test('subscribe answers 201, the same endpoint again 200 with the same id, over REST and over the socket alike; list and delete', async () => {
    const ana = await aResident(app);
    const sub = push.subscribe();
    const first = await app.rest('POST', '/api/push/subscriptions/', { token: ana.token, body: { kind: 'webpush', ...sub, locale: 'pt-PT' } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(String), kind: 'webpush', created_at: expect.any(String), last_success_at: null });
    const again = await app.emit('push.subscribe', { kind: 'webpush', ...sub }, { token: ana.token });
    expect(again).toEqual({ status: 200, body: first.body });
    const againRest = await app.rest('POST', '/api/push/subscriptions/', { token: ana.token, body: { kind: 'webpush', ...sub } });
    expect(againRest.status).toBe(200);
    expect(againRest.body).toEqual(first.body);

    const other = await app.emit('push.subscribe', { kind: 'webpush', ...push.subscribe() }, { token: ana.token });
    expect(other.status).toBe(201);
    const listed = await app.rest('GET', '/api/push/subscriptions/', { token: ana.token });
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(2);
    expect(listed.body.results.map((d: any) => d.id)).toEqual([other.body.id, first.body.id]);
    // Never the endpoint, keys or token.
    expect(JSON.stringify(listed.body)).not.toContain(sub.keys.auth);
    expect(JSON.stringify(listed.body)).not.toContain(sub.endpoint);
    expect(await app.emit('push.list', {}, { token: ana.token })).toEqual({ status: 200, body: listed.body });

    const bob = await aResident(app);
    expect((await app.rest('DELETE', `/api/push/subscriptions/${first.body.id}/`, { token: bob.token })).status).toBe(404);
    expect(await app.emit('push.unsubscribe', { subscription_id: first.body.id }, { token: bob.token })).toEqual({ status: 404, body: { detail: expect.any(String) } });
    expect((await app.rest('DELETE', `/api/push/subscriptions/${first.body.id}/`, { token: ana.token })).status).toBe(204);
    expect(await app.emit('push.unsubscribe', { subscription_id: other.body.id }, { token: ana.token })).toEqual({ status: 204, body: null });
    expect((await app.rest('GET', '/api/push/subscriptions/', { token: ana.token })).body.count).toBe(0);
    expect((await app.rest('GET', '/api/push/subscriptions/')).status).toBe(401);
  });

  test('an endpoint subscribed by someone else moves to them (a phone that changed hands): 200, and the first owner no longer has it', async () => {
    const ana = await aResident(app);
    const bob = await aResident(app);
    const { id, sub } = await aDevice(ana);
    const moved = await app.rest('POST', '/api/push/subscriptions/', { token: bob.token, body: { kind: 'webpush', ...sub } });
    expect(moved.status).toBe(200);
    expect(moved.body.id).toBe(id);
    expect((await app.rest('GET', '/api/push/subscriptions/', { token: ana.token })).body.count).toBe(0);
    expect((await app.rest('GET', '/api/push/subscriptions/', { token: bob.token })).body.results.map((d: any) => d.id)).toEqual([id]);
  });

  test('at most 20 devices per person: the 21st makes the oldest go', async () => {
    const ana = await aResident(app);
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) ids.push((await aDevice(ana)).id);
    const listed = await app.rest('GET', '/api/push/subscriptions/', { token: ana.token });
    expect(listed.body.count).toBe(20);
    expect(listed.body.results.map((d: any) => d.id)).not.toContain(ids[0]);
    expect(listed.body.results.map((d: any) => d.id)).toContain(ids[20]);
  });

  test('a kind whose settings are missing is 400 {kind: [...not configured...]}; bad fields are 400 by name; the same over the socket', async () => {
    const ana = await aResident(app);
    for (const body of [{ kind: 'fcm', token: 'fcm-token-1' }, { kind: 'apns', token: 'ab'.repeat(32), environment: 'sandbox' }]) {
      const rest = await app.rest('POST', '/api/push/subscriptions/', { token: ana.token, body });
      expect(rest.status).toBe(400);
      expect(rest.body.kind[0]).toMatch(/not configured/);
      expect(await app.emit('push.subscribe', body, { token: ana.token })).toEqual({ status: 400, body: rest.body });
    }
    const sub = push.subscribe();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ kind: 'webpush', endpoint: sub.endpoint }, 'keys'],
      [{ kind: 'webpush', keys: sub.keys }, 'endpoint'],
      [{ kind: 'webpush', endpoint: sub.endpoint, keys: { p256dh: 'AAAA', auth: sub.keys.auth } }, 'keys'],
      [{ kind: 'webpush', endpoint: 'not a url', keys: sub.keys }, 'endpoint'],
      [{ kind: 'carrier-pigeon', token: 'x' }, 'kind'],
    ];
    for (const [body, field] of cases) {
      const rest = await app.rest('POST', '/api/push/subscriptions/', { token: ana.token, body });
      expect(rest.status).toBe(400);
      expect(Object.keys(rest.body).join()).toContain(field);
      expect(await app.emit('push.subscribe', body, { token: ana.token })).toEqual({ status: 400, body: rest.body });
    }
  });

  test('logout with push_subscription_id ends that device (only the caller\'s own); account deletion removes them all; the export lists them without secrets', async () => {
    const ana = await aResident(app);
    const bob = await aResident(app);
    const one = await aDevice(ana);
    const two = await aDevice(ana);
    const bobs = await aDevice(bob);
    // Someone else's id in the body ends nothing of theirs.
    expect((await app.rest('POST', '/api/auth/logout/', { body: { refresh: ana.refresh, push_subscription_id: bobs.id } })).status).toBe(200);
    expect((await app.rest('GET', '/api/push/subscriptions/', { token: bob.token })).body.count).toBe(1);
    const login = await app.rest('POST', '/api/auth/login/', { body: { username: ana.username, password: ana.password } });
    expect(login.status).toBe(200);
    const logout = await app.emit('accounts.logout', { refresh: login.body.refresh_token, push_subscription_id: one.id });
    expect(logout.status).toBe(200);
    const relog = await app.rest('POST', '/api/auth/login/', { body: { username: ana.username, password: ana.password } });
    const listed = await app.rest('GET', '/api/push/subscriptions/', { token: relog.body.access_token });
    expect(listed.body.results.map((d: any) => d.id)).toEqual([two.id]);

    const exported = await app.rest('GET', '/api/users/profile/export/', { token: relog.body.access_token });
    expect(exported.status).toBe(200);
    expect(exported.body.push_subscriptions).toEqual([{ id: two.id, kind: 'webpush', created_at: expect.any(String), last_success_at: null }]);
    expect(JSON.stringify(exported.body)).not.toContain(two.sub.keys.auth);

    const deleted = await app.rest('DELETE', '/api/users/profile/', { token: relog.body.access_token, body: { password: ana.password } });
    expect(deleted.status).toBe(204);
    const left = await platform.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM push_devices WHERE user_id = ${ana.id}::uuid`);
    expect(left.rows[0].n).toBe(0);
  });
});

describe('every notification is pushed', () => {
  test('a like reaches the author\'s browser: VAPID verified, decrypted payload as sent, Topic, TTL, urgency, badge; a second like counts', async () => {
    const { ana, bob, cara } = await neighbours();
    const device = await aDevice(ana);
    const post = await aPost(app, ana);
    expect((await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: bob.token })).status).toBeLessThan(300);
    const [first] = await push.waitFor(1, 10_000, pushesTo(device.sub));
    expect(first.vapid).toMatchObject({ ok: true });
    expect(first.contentEncoding).toBe('aes128gcm');
    expect(first.decryptError).toBeUndefined();
    const notifications = (await app.rest('GET', '/api/notifications/', { token: ana.token })).body.results;
    const like = notifications.find((n: any) => n.notification_type === 'post_like');
    expect(first.payload).toEqual({
      notification_id: like.id,
      notification_type: 'post_like',
      title: 'New like',
      body: `${bob.username} liked your post`,
      target_type: 'Post',
      target_id: post.id,
      unread_count: 1,
      created_at: like.created_at,
    });
    expect(first.topic).toBe(collapseId('post_like', post.id, like.id));
    expect(first.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    expect(first.urgency).toBe('normal');
    expect(first.ttl).toBeGreaterThan(86_000);
    expect(first.ttl).toBeLessThanOrEqual(86_400);

    await app.emit('posts.like', { post_id: post.id }, { token: cara.token });
    const [, second] = await push.waitFor(2, 10_000, pushesTo(device.sub));
    expect(second.payload.body).toBe(`${cara.username} and 1 other liked your post`);
    expect(second.payload.unread_count).toBe(2);
    expect(second.topic).toBe(first.topic);
    await settle();
    expect(push.received.filter(pushesTo(device.sub))).toHaveLength(2);
    await flushSuccesses();
    const listed = await app.rest('GET', '/api/push/subscriptions/', { token: ana.token });
    expect(listed.body.results[0].last_success_at).not.toBeNull();
  });

  test('a direct message is pushed with urgency high to each of the recipient\'s devices, once each', async () => {
    const ana = await aResident(app);
    const bob = await aResident(app);
    const phone = await aDevice(bob);
    const laptop = await aDevice(bob);
    const conversation = await aConversation(app, ana, bob);
    await aMessage(app, ana, conversation.id, 'Are you home?');
    await push.waitFor(2, 10_000, (p) => p.payload?.notification_type === 'new_message' && [phone, laptop].some((d) => pushesTo(d.sub)(p)));
    await settle();
    const got = push.received.filter((p) => [phone, laptop].some((d) => pushesTo(d.sub)(p)));
    expect(got).toHaveLength(2);
    for (const p of got) {
      expect(p.urgency).toBe('high');
      expect(p.payload.title).toBe('New message');
    }
  });

  test('previews off: the payload carries nothing another person wrote; a type switched off is not pushed but still notified; quiet hours push nothing', async () => {
    const { ana, bob, cara } = await neighbours();
    const device = await aDevice(ana);
    const off = await app.rest('PUT', '/api/notifications/preferences/', { token: ana.token, body: { previews: false } });
    expect(off.status).toBe(200);
    const post = await aPost(app, ana);
    await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: bob.token });
    const [got] = await push.waitFor(1, 10_000, pushesTo(device.sub));
    expect(got.payload.title).toBe('New like');
    expect(got.payload.body).toBe('');
    expect(JSON.stringify(got.payload)).not.toContain(bob.username);

    await app.rest('PUT', '/api/notifications/preferences/', { token: ana.token, body: { previews: true, push: { post_reply: false } } });
    const comment = await app.rest('POST', '/api/posts/comments/', { token: cara.token, body: { post: post.id, content: 'Lovely' } });
    expect(comment.status).toBe(201);
    await settle();
    expect(push.received.filter(pushesTo(device.sub))).toHaveLength(1);
    const notes = (await app.rest('GET', '/api/notifications/', { token: ana.token })).body.results;
    expect(notes.some((n: any) => n.notification_type === 'post_reply')).toBe(true);

    // Quiet hours all day long (from the minute after now round to now, in UTC): nothing is pushed.
    const now = new Date();
    const hhmm = (d: Date) => `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
    await app.rest('PUT', '/api/notifications/preferences/', { token: ana.token, body: { quiet_hours: { start: hhmm(new Date(now.getTime() - 3600_000)), end: hhmm(new Date(now.getTime() + 3600_000)), time_zone: 'UTC' } } });
    outcomes.length = 0;
    const post2 = await aPost(app, ana);
    await app.rest('POST', `/api/feed/posts/${post2.id}/like/`, { token: cara.token });
    await settle();
    expect(push.received.filter(pushesTo(device.sub))).toHaveLength(1);
    expect(outcomes.some((o) => o.deviceId === device.id && o.reason === 'quiet hours')).toBe(true);
  });

  test('an alert is pushed with urgency high even in quiet hours (DESIGN 13), and not at all to a person who switched alert pushes off', async () => {
    const { place, bob, cara } = await neighbours();
    const dave = await aResidentOf(app, place);
    const caraDevice = await aDevice(cara);
    const daveDevice = await aDevice(dave);
    const now = new Date();
    const hhmm = (d: Date) => `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
    const quiet = { start: hhmm(new Date(now.getTime() - 3600_000)), end: hhmm(new Date(now.getTime() + 3600_000)), time_zone: 'UTC' };
    expect((await app.rest('PUT', '/api/notifications/preferences/', { token: cara.token, body: { quiet_hours: quiet } })).status).toBe(200);
    expect((await app.rest('PUT', '/api/notifications/preferences/', { token: dave.token, body: { push: { alert: false } } })).status).toBe(200);

    const alert = await app.rest('POST', '/api/feed/posts/', { token: bob.token, body: { post_type: 'alert', title: 'Water cut', content: 'No water on Elm Street until 6 pm' } });
    expect(alert.status).toBe(201);
    const [got] = await push.waitFor(1, 15_000, (p) => pushesTo(caraDevice.sub)(p) && p.payload?.notification_type === 'alert');
    expect(got.urgency).toBe('high');
    expect(got.payload).toMatchObject({ notification_type: 'alert', target_id: alert.body.id });
    await settle();
    // Dave was told in the app, but his phone was not woken.
    const daveNotes = (await app.rest('GET', '/api/notifications/', { token: dave.token })).body.results;
    expect(daveNotes.some((n: any) => n.notification_type === 'alert')).toBe(true);
    expect(push.received.filter(pushesTo(daveDevice.sub))).toHaveLength(0);
  });

  test('a block stops the notification and its push; a mute made after a push failed stops its retry (re-checked at send time)', async () => {
    const { ana, bob, cara } = await neighbours();
    const device = await aDevice(ana);
    const post = await aPost(app, ana);
    await aBlock(app, ana, bob);
    await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: bob.token });
    await settle();
    expect(push.received.filter(pushesTo(device.sub))).toHaveLength(0);

    push.answer = () => ({ status: 503, headers: { 'retry-after': '1' } });
    await app.rest('POST', `/api/feed/posts/${post.id}/like/`, { token: cara.token });
    await push.waitFor(1, 10_000, pushesTo(device.sub));
    await settle();
    push.answer = () => 201;
    await aMute(app, ana, cara);
    outcomes.length = 0;
    outboxClock.now = () => new Date(realNow().getTime() + 60_000);
    await settle();
    expect(push.received.filter(pushesTo(device.sub))).toHaveLength(1);
    expect(outcomes).toContainEqual(expect.objectContaining({ deviceId: device.id, outcome: 'skipped', reason: 'blocked or muted' }));
  });

  test('404 or 410 from the push service removes the device at once; the notification stays', async () => {
    const ana = await aResident(app);
    const bob = await aResident(app);
    const device = await aDevice(bob);
    push.answer = () => 410;
    const conversation = await aConversation(app, ana, bob);
    await aMessage(app, ana, conversation.id);
    await push.waitFor(1, 10_000, pushesTo(device.sub));
    await settle();
    expect((await app.rest('GET', '/api/push/subscriptions/', { token: bob.token })).body.count).toBe(0);
    expect((await app.rest('GET', '/api/notifications/unread-count/', { token: bob.token })).body.count).toBe(1);
  });

  test('429 with Retry-After: tried again no sooner than it says, then delivered once; a 5xx again until it answers', async () => {
    const ana = await aResident(app);
    const bob = await aResident(app);
    const device = await aDevice(bob);
    push.answer = () => ({ status: 429, headers: { 'retry-after': '120' } });
    const conversation = await aConversation(app, ana, bob);
    await aMessage(app, ana, conversation.id);
    await push.waitFor(1, 10_000, pushesTo(device.sub));
    await settle();
    const { rows } = await platform.db.execute<{ run_at: Date }>(sql`SELECT run_at FROM outbox WHERE kind = 'push.send' AND payload ->> 'device_id' = ${device.id}`);
    expect(rows).toHaveLength(1);
    expect(new Date(rows[0].run_at).getTime()).toBeGreaterThanOrEqual(Date.now() + 100_000);
    // 100 s later: not yet due.
    outboxClock.now = () => new Date(realNow().getTime() + 100_000);
    await settle();
    expect(push.received.filter(pushesTo(device.sub))).toHaveLength(1);
    push.answer = () => 500;
    outboxClock.now = () => new Date(realNow().getTime() + 130_000);
    await settle();
    expect(push.received.filter(pushesTo(device.sub))).toHaveLength(2);
    push.answer = () => 201;
    outboxClock.now = () => new Date(realNow().getTime() + 3600_000);
    await settle();
    const got = push.received.filter(pushesTo(device.sub));
    expect(got).toHaveLength(3);
    // The TTL counts down from the notification's creation.
    expect(got[2].ttl).toBeLessThanOrEqual(86_400 - 3600);
    expect((await platform.db.execute(sql`SELECT 1 FROM outbox WHERE payload ->> 'device_id' = ${device.id}`)).rows).toHaveLength(0);
    expect((await app.rest('GET', '/api/push/subscriptions/', { token: bob.token })).body.count).toBe(1);
  });

  test('a community post pushes to each member\'s device once, from the fan-out (not the post\'s request)', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    const members = [await aResident(app), await aResident(app), await aResident(app)];
    const devices: Array<{ id: string; sub: BrowserSubscription }> = [];
    for (const m of members) {
      await joinCommunity(app, m, club.id);
      devices.push(await aDevice(m));
    }
    const reads = { ...pushReads };
    const res = await app.rest('POST', '/api/feed/posts/', { token: owner.token, body: { post_type: 'text', content: 'Meeting tonight', community_id: club.id } });
    expect(res.status).toBe(201);
    await push.waitFor(3, 15_000, (p) => devices.some((d) => pushesTo(d.sub)(p)));
    await settle();
    for (const d of devices) {
      const got = push.received.filter(pushesTo(d.sub));
      expect(got).toHaveLength(1);
      expect(got[0].payload).toMatchObject({ notification_type: 'new_post', target_type: 'Post', target_id: res.body.id });
    }
    // The fan-out's pushes are claimed together and read together: one statement for the three, not one each.
    expect(pushReads.pushes - reads.pushes).toBeGreaterThanOrEqual(3);
    expect(pushReads.reads - reads.reads).toBeLessThan(pushReads.pushes - reads.pushes);
  });
});

describe('preferences and badges', () => {
  test('preferences: defaults, partial PUT, unknown types and zones 400, the same over REST and the socket', async () => {
    const ana = await aResident(app);
    const defaults = await app.rest('GET', '/api/notifications/preferences/', { token: ana.token });
    expect(defaults.status).toBe(200);
    expect(defaults.body).toMatchObject({ email_digest: 'off', previews: true, quiet_hours: null });
    expect(Object.values(defaults.body.push).every((v) => v === true)).toBe(true);
    expect(defaults.body.push).toHaveProperty('new_message', true);
    expect(await app.emit('notifications.preferences', {}, { token: ana.token })).toEqual({ status: 200, body: defaults.body });

    const put = await app.rest('PUT', '/api/notifications/preferences/', { token: ana.token, body: { push: { post_like: false }, email_digest: 'weekly', quiet_hours: { start: '22:00', end: '07:00', time_zone: 'Europe/Lisbon' } } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ email_digest: 'weekly', previews: true, quiet_hours: { start: '22:00', end: '07:00', time_zone: 'Europe/Lisbon' } });
    expect(put.body.push).toMatchObject({ post_like: false, new_message: true });
    const viaSocket = await app.emit('notifications.update_preferences', { previews: false }, { token: ana.token });
    expect(viaSocket.status).toBe(200);
    expect(viaSocket.body).toEqual({ ...put.body, previews: false });
    const cleared = await app.rest('PUT', '/api/notifications/preferences/', { token: ana.token, body: { quiet_hours: null } });
    expect(cleared.body.quiet_hours).toBeNull();

    for (const [body, field] of [
      [{ push: { not_a_type: true } }, 'push'],
      [{ quiet_hours: { start: '22:00', end: '07:00', time_zone: 'Mars/Olympus_Mons' } }, 'quiet_hours'],
      [{ quiet_hours: { start: '25:00', end: '07:00', time_zone: 'UTC' } }, 'quiet_hours'],
      [{ email_digest: 'hourly' }, 'email_digest'],
    ] as const) {
      const rest = await app.rest('PUT', '/api/notifications/preferences/', { token: ana.token, body });
      expect(rest.status).toBe(400);
      expect(Object.keys(rest.body).join()).toContain(field);
      expect(await app.emit('notifications.update_preferences', body, { token: ana.token })).toEqual({ status: 400, body: rest.body });
    }
  });

  test('unread-count and read-all over both transports; notification:read_all reaches every socket of the person; the next push counts from there', async () => {
    const ana = await aResident(app);
    const bob = await aResident(app);
    const device = await aDevice(bob);
    const cara = await aResident(app);
    const conversation = await aConversation(app, ana, bob);
    await aMessage(app, ana, conversation.id, 'one');
    await aMessage(app, cara, (await aConversation(app, cara, bob)).id, 'two');
    const count = await app.rest('GET', '/api/notifications/unread-count/', { token: bob.token });
    expect(count).toMatchObject({ status: 200, body: { count: 2 } });
    expect(await app.emit('notifications.unread_count', {}, { token: bob.token })).toEqual({ status: 200, body: { count: 2 } });
    await push.waitFor(2, 10_000, pushesTo(device.sub));

    const phone = await app.socket(bob.token);
    const tablet = await app.socket(bob.token);
    const heard = Promise.all([phone, tablet].map((s) => new Promise<any>((resolve) => s.once('notification:read_all', resolve))));
    const readAll = await app.rest('POST', '/api/notifications/read-all/', { token: bob.token });
    expect(readAll).toMatchObject({ status: 200, body: { updated: 2 } });
    const events = await heard;
    for (const e of events) expect(e).toEqual({ read_at: expect.any(String) });
    expect(await app.emit('notifications.read_all', {}, { token: bob.token })).toEqual({ status: 200, body: { updated: 0 } });
    expect((await app.rest('GET', '/api/notifications/unread-count/', { token: bob.token })).body.count).toBe(0);

    const dave = await aResident(app);
    await aMessage(app, dave, (await aConversation(app, dave, bob)).id, 'three');
    await settle();
    const got = await push.waitFor(3, 10_000, pushesTo(device.sub));
    expect(got[2].payload.unread_count).toBe(1);
  });
});
