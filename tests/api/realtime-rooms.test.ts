import crypto from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { locationAudience } from '../../src/realtime/event-routes.js';
import { nextEvent, noEvent, startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aUser, type TestUser } from '../builders/users.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

async function moveTo(user: TestUser): Promise<string> {
  const res = await app.rest('POST', '/api/users/update-location/', { token: user.token, body: { country: `Country ${unique()}`, city: `City ${unique()}` } });
  expect(res.status).toBe(200);
  return res.body.location.id;
}

/** Room membership is server-side only: observe it by emitting to the room and seeing who hears it. */
async function hears(socket: Socket, locationId: string): Promise<boolean> {
  const probe = crypto.randomUUID();
  const heard = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 600);
    socket.on('test:probe', (p: string) => {
      if (p === probe) {
        clearTimeout(timer);
        resolve(true);
      }
    });
  });
  app.server.io.to(locationAudience(locationId)).emit('test:probe', probe);
  return heard;
}

/** Wait until a condition holds (the room move follows the commit asynchronously). */
async function eventually(check: () => Promise<boolean>, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
  }
  return false;
}

describe('location rooms', () => {
  test("when an authenticated socket connects, then it is in its user's location room and not in others", async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const alicesPlace = await moveTo(alice);
    const bobsPlace = await moveTo(bob);
    const s = await app.socket(alice.token);
    expect(await eventually(() => hears(s, alicesPlace))).toBe(true);
    expect(await hears(s, bobsPlace)).toBe(false);
  });

  test("when the user's location changes (from any device or transport), then all its sockets leave the old room and join the new one", async () => {
    const alice = await aUser(app);
    const before = await moveTo(alice);
    const phone = await app.socket(alice.token);
    const laptop = await app.socket(alice.token);
    expect(await eventually(() => hears(phone, before))).toBe(true);

    const ack = await phone.timeout(5000).emitWithAck('users.update_location', { country: `Country ${unique()}`, city: `City ${unique()}` });
    expect(ack.status).toBe(200);
    const after: string = ack.body.location.id;

    for (const s of [phone, laptop]) {
      expect(await eventually(() => hears(s, after))).toBe(true);
      expect(await hears(s, before)).toBe(false);
    }

    // And through REST profile update as well.
    const third = await app.rest('PATCH', '/api/users/profile/', { token: alice.token, body: { location: { country: `Country ${unique()}`, city: `City ${unique()}` } } });
    expect(await eventually(() => hears(laptop, third.body.location.id))).toBe(true);
    expect(await hears(laptop, after)).toBe(false);
  });

  test('when a user who subscribed to its own location moves away, then the subscription stays and only the residency ends', async () => {
    const alice = await aUser(app);
    const home = await moveTo(alice);
    const watcher = await app.socket(alice.token);
    const bystander = await app.socket(alice.token);
    expect(await watcher.timeout(3000).emitWithAck('subscribe', { channel: 'location', id: home })).toMatchObject({ status: 200 });
    expect(await eventually(() => hears(bystander, home))).toBe(true);

    await moveTo(alice);
    // The device that subscribed on purpose keeps watching the old place; the other one leaves with the user.
    expect(await eventually(async () => !(await hears(bystander, home)))).toBe(true);
    expect(await hears(watcher, home)).toBe(true);
  });

  test('when an anonymous socket connects, then it is in no location room', async () => {
    const alice = await aUser(app);
    const place = await moveTo(alice);
    const anonymous = await app.socket();
    expect(await hears(anonymous, place)).toBe(false);
  });
});

describe('subscribe / unsubscribe', () => {
  test('when the channel is unknown, then the ack is 400 naming the channel field', async () => {
    const s = await app.socket();
    const ack = await s.timeout(3000).emitWithAck('subscribe', { channel: 'galaxy', id: crypto.randomUUID() });
    expect(ack).toEqual({ status: 400, body: { channel: [expect.stringContaining('galaxy')] } });
  });

  test('when the id is malformed, then the ack is 400 {id: [Invalid UUID format.]}', async () => {
    const s = await app.socket();
    expect(await s.timeout(3000).emitWithAck('subscribe', { channel: 'location', id: 'nope' })).toEqual({ status: 400, body: { id: ['Invalid UUID format.'] } });
    expect(await s.timeout(3000).emitWithAck('unsubscribe', { channel: 'location', id: 'nope' })).toEqual({ status: 400, body: { id: ['Invalid UUID format.'] } });
  });

  test('when fields are missing, then the ack is 400 with field errors', async () => {
    const s = await app.socket();
    const ack = await s.timeout(3000).emitWithAck('subscribe', {});
    expect(ack).toEqual({ status: 400, body: { channel: ['This field is required.'], id: ['This field is required.'] } });
  });

  test('when an anonymous display subscribes to an existing location, then it hears that room until it unsubscribes', async () => {
    const alice = await aUser(app);
    const place = await moveTo(alice);
    const display = await app.socket();
    expect(await display.timeout(3000).emitWithAck('subscribe', { channel: 'location', id: place.toUpperCase() })).toEqual({ status: 200, body: { channel: 'location', id: place } });
    expect(await hears(display, place)).toBe(true);
    expect(await display.timeout(3000).emitWithAck('unsubscribe', { channel: 'location', id: place })).toEqual({ status: 200, body: { channel: 'location', id: place } });
    expect(await hears(display, place)).toBe(false);
  });

  test('when the location does not exist, then the subscribe ack is 404 and the room is not joined', async () => {
    const display = await app.socket();
    const id = crypto.randomUUID();
    expect(await display.timeout(3000).emitWithAck('subscribe', { channel: 'location', id })).toEqual({ status: 404, body: { detail: 'Not found.' } });
    expect(await hears(display, id)).toBe(false);
  });

  test('when unsubscribing from something never subscribed, then the ack is 404', async () => {
    const s = await app.socket();
    const ack = await s.timeout(3000).emitWithAck('unsubscribe', { channel: 'location', id: crypto.randomUUID() });
    expect(ack).toEqual({ status: 404, body: { detail: 'Not found.' } });
  });
});

describe('user room', () => {
  test("when something is pushed to a user's room, then only that user's sockets hear it", async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const s = await app.socket(alice.token);
    const other = noEvent(s, 'test:user', 500);
    app.server.io.to(`user:${bob.id}`).emit('test:user', 'for bob');
    await other;
    const mine = nextEvent(s, 'test:user');
    app.server.io.to(`user:${alice.id}`).emit('test:user', 'for alice');
    expect(await mine).toBe('for alice');
  });
});
