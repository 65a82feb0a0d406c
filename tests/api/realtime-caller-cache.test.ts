import crypto from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { nextEvent, startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { sql } from '../helpers/sql.js';
import { aUser } from '../builders/users.js';
import { domainEvents } from '../../src/core/events.js';
import { CALLER_CACHE_TTL_MS } from '../../src/realtime/caller.js';

/**
 * A socket's caller is checked against the database once and cached on the socket; a change of rights,
 * a deactivation or an ended session reaches the live socket at once because every node drops the cached
 * caller when `user.access_changed` (or `user.deactivated`) is published.
 */
const ADMIN_EMAIL = `${unique('admin')}@example.test`;
const ADMIN_PASSWORD = 'admin-password-123';
const clock = new ManualClock();
let app: TestApp;
let adminToken: string;

beforeAll(async () => {
  app = await startTestApp({ ADMIN_EMAIL, ADMIN_PASSWORD }, { realtime: { clock } });
  const login = await app.rest('POST', '/api/auth/login/', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
  adminToken = login.body.access_token;
});
afterAll(async () => {
  await app.stop();
});
beforeEach(() => clock.reset());

const analytics = (s: Socket) => s.timeout(5000).emitWithAck('locations.analytics', {});
const FORBIDDEN = { status: 403, body: { detail: 'You do not have permission to perform this action.' } };

/** The next event's fate: its ack, or 'disconnected' if the server closed the socket instead of answering. */
async function nextEventOutcome(s: Socket): Promise<{ status: number } | 'disconnected'> {
  if (!s.connected) return 'disconnected';
  const closed = new Promise<'disconnected'>((resolve) => s.once('disconnect', () => resolve('disconnected')));
  return Promise.race([s.timeout(5000).emitWithAck('users.profile', {}), closed]);
}

describe('the cached caller', () => {
  test('when rights change in the database without an event, then the socket keeps its checked caller until the cache is dropped or ages out', async () => {
    const moderator = await aUser(app);
    const s = await app.socket(moderator.token);
    expect(await analytics(s)).toEqual(FORBIDDEN);

    // Behind the service's back: no domain event, so only the safety-net TTL can reveal it.
    await sql('UPDATE users SET is_staff = true WHERE id = $1', [moderator.id]);
    expect(await analytics(s)).toEqual(FORBIDDEN);
    clock.advance(CALLER_CACHE_TTL_MS);
    expect((await analytics(s)).status).toBe(200);

    await sql('UPDATE users SET is_staff = false WHERE id = $1', [moderator.id]);
    expect((await analytics(s)).status).toBe(200);
    domainEvents.publish('user.access_changed', { userId: moderator.id });
    expect(await analytics(s)).toEqual(FORBIDDEN);
  });

  test('when user.access_changed is published for another user, then this caller stays cached', async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const s = await app.socket(alice.token);
    expect(await analytics(s)).toEqual(FORBIDDEN);
    await sql('UPDATE users SET is_staff = true WHERE id = $1', [alice.id]);
    domainEvents.publish('user.access_changed', { userId: bob.id });
    expect(await analytics(s)).toEqual(FORBIDDEN);
    domainEvents.publish('user.access_changed', { userId: alice.id });
    expect((await analytics(s)).status).toBe(200);
  });

  test('when an admin grants staff over REST, then the next event on the live socket has the right, and loses it when revoked', async () => {
    const moderator = await aUser(app);
    const s = await app.socket(moderator.token);
    expect(await analytics(s)).toEqual(FORBIDDEN);
    expect((await app.rest('PATCH', `/api/admin/users/${moderator.username}/`, { token: adminToken, body: { is_staff: true } })).status).toBe(200);
    expect((await analytics(s)).status).toBe(200);
    expect((await app.rest('PATCH', `/api/admin/users/${moderator.username}/`, { token: adminToken, body: { is_staff: false } })).status).toBe(200);
    expect(await analytics(s)).toEqual(FORBIDDEN);
  });
});

describe('a caller that is no longer accepted', () => {
  test('when an admin deactivates the user over REST, then the very next event on its live socket is refused (the socket is closed)', async () => {
    const alice = await aUser(app);
    const s = await app.socket(alice.token);
    expect(await nextEventOutcome(s)).toMatchObject({ status: 200 });
    const gone = nextEvent(s, 'disconnect');
    expect((await app.rest('PATCH', `/api/admin/users/${alice.username}/`, { token: adminToken, body: { is_active: false } })).status).toBe(200);
    const outcome = await nextEventOutcome(s);
    expect(['disconnected', 401]).toContain(outcome === 'disconnected' ? outcome : outcome.status);
    expect(await gone).toBe('io server disconnect');
  });

  test('when user.access_changed says the token is no longer accepted, then the next event is refused and the socket gets auth:expired and is disconnected', async () => {
    const alice = await aUser(app);
    const s = await app.socket(alice.token);
    expect(await nextEventOutcome(s)).toMatchObject({ status: 200 });
    const expired = nextEvent(s, 'auth:expired');
    const gone = nextEvent(s, 'disconnect');
    // A change that only raises user.access_changed (as ending every session does): no user.deactivated.
    await sql('UPDATE users SET is_active = false WHERE id = $1', [alice.id]);
    domainEvents.publish('user.access_changed', { userId: alice.id });
    const outcome = await nextEventOutcome(s);
    expect(['disconnected', 401]).toContain(outcome === 'disconnected' ? outcome : outcome.status);
    await expired;
    expect(await gone).toBe('io server disconnect');
  });
});

describe('accounts.logout over a socket', () => {
  test('when a socket logs out, then it becomes anonymous: it leaves its user and residents rooms, its expiry timer ends, user-only events get 401, and its other devices stay signed in', async () => {
    const alice = await aUser(app);
    const place = await app.rest('POST', '/api/users/update-location/', { token: alice.token, body: { country: `Country ${unique()}`, city: `City ${unique()}` } });
    const locationId: string = place.body.location.id;
    const phone = await app.socket(alice.token);
    // Another device: its own login, its own session.
    const otherLogin = await app.rest('POST', '/api/auth/login/', { body: { username: alice.username, password: alice.password } });
    const laptop = await app.socket(otherLogin.body.access_token);
    expect(await phone.timeout(5000).emitWithAck('subscribe', { channel: 'location', id: locationId })).toMatchObject({ status: 200 });
    // This node's view (the only node here; a cluster-wide fetchSockets would also ask every server sharing the Redis).
    const serverSide = async () => (await app.server.io.local.in(`user:${alice.id}`).fetchSockets()).length;
    expect(await serverSide()).toBe(2);
    const timersBefore = clock.pending;

    const ack = await phone.timeout(5000).emitWithAck('accounts.logout', { refresh: alice.refresh });
    expect(ack).toEqual({ status: 200, body: { message: 'Successfully logged out.' } });

    expect(await phone.timeout(5000).emitWithAck('users.profile', {})).toEqual({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
    expect(await serverSide()).toBe(1);
    expect(clock.pending).toBe(timersBefore - 1);
    const [phoneOnServer] = (await app.server.io.local.fetchSockets()).filter((s) => s.id === phone.id);
    expect([...phoneOnServer.rooms].filter((room) => room !== phone.id).sort()).toEqual([`sub:location:${locationId}`]);
    // Nothing meant for alice reaches the phone any more; the laptop still hears it.
    const probe = crypto.randomUUID();
    const onLaptop = nextEvent(laptop, 'test:user');
    const onPhone: string[] = [];
    phone.on('test:user', (p: string) => onPhone.push(p));
    app.server.io.to(`user:${alice.id}`).emit('test:user', probe);
    expect(await onLaptop).toBe(probe);
    await phone.timeout(5000).emitWithAck('users.profile', {}); // a round trip: a push would have arrived before it
    expect(onPhone).toEqual([]);
    expect(await laptop.timeout(5000).emitWithAck('users.profile', {})).toMatchObject({ status: 200, body: { id: alice.id } });
  });
});
