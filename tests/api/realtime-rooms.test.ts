import crypto from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { locationAudience } from '../../src/realtime/event-routes.js';
import { startTestApp, unique, type TestApp, eventually } from '../helpers/test-app.js';
import { aUser, type TestUser } from '../builders/users.js';
import { domainEvents } from '../../src/core/events.js';
import { currentLocationId } from '../../src/modules/users/users.queries.js';

/**
 * The residents' room logic reads where a user lives through this function; a test may hold the reads of one
 * user and release them in the order it chooses, to play a race between a connect and a move deterministically.
 */
let holdReadsOf: string | null = null;
const heldReads: Array<() => void> = [];
let onHeld: (() => void) | null = null;
async function locationOf(userId: string): Promise<string | null> {
  const locationId = await currentLocationId(userId);
  if (holdReadsOf === userId) {
    await new Promise<void>((release) => {
      heldReads.push(release);
      onHeld?.();
    });
  }
  return locationId;
}
const readsHeld = (n: number) =>
  new Promise<void>((resolve) => {
    onHeld = () => heldReads.length >= n && resolve();
    onHeld();
  });

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({}, { realtime: { locationOf } });
});
afterAll(async () => {
  await app.stop();
});

async function moveTo(user: TestUser): Promise<string> {
  const res = await app.rest('POST', '/api/users/update-location/', { token: user.token, body: { country: `Country ${unique()}`, city: `City ${unique()}` } });
  expect(res.status).toBe(200);
  return res.body.location.id;
}

/**
 * Room membership is server-side only: observe it by emitting to the room and seeing who hears it. A round
 * trip on the socket after the emit (an unknown event, acked 404 at once) is the deadline: a probe sent to
 * the socket's rooms arrives before that answer, so no timer decides.
 */
async function hears(socket: Socket, locationId: string): Promise<boolean> {
  const probe = crypto.randomUUID();
  let heard = false;
  const onProbe = (p: string) => {
    if (p === probe) heard = true;
  };
  socket.on('test:probe', onProbe);
  app.server.io.to(locationAudience(locationId)).emit('test:probe', probe);
  await socket.timeout(5000).emitWithAck('test:round-trip', {});
  socket.off('test:probe', onProbe);
  return heard;
}


/** The residents' rooms a client socket is in, read on the server. */
const residentsRoomsOf = (s: Socket) => [...(app.server.io.of('/').sockets.get(s.id!)?.rooms ?? [])].filter((room) => room.startsWith('residents:'));

describe('location rooms', () => {
  test("when an authenticated socket connects, then it is in its user's location room and not in others", async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const alicesPlace = await moveTo(alice);
    const bobsPlace = await moveTo(bob);
    const s = await app.socket(alice.token);
    const bobsSocket = await app.socket(bob.token);
    expect(await eventually(() => hears(s, alicesPlace))).toBe(true);
    expect(await eventually(() => hears(bobsSocket, bobsPlace))).toBe(true); // control: the probe reaches bob's place
    expect(await hears(s, bobsPlace)).toBe(false);
  });

  test("when the user's location changes (from any device or transport), then all its sockets leave the old room and join the new one", async () => {
    const alice = await aUser(app);
    const before = await moveTo(alice);
    const phone = await app.socket(alice.token);
    const laptop = await app.socket(alice.token);
    const display = await app.socket();
    expect(await display.timeout(3000).emitWithAck('subscribe', { channel: 'location', id: before })).toMatchObject({ status: 200 });
    expect(await eventually(() => hears(phone, before))).toBe(true);

    const ack = await phone.timeout(5000).emitWithAck('users.update_location', { country: `Country ${unique()}`, city: `City ${unique()}` });
    expect(ack.status).toBe(200);
    const after: string = ack.body.location.id;

    for (const s of [phone, laptop]) {
      expect(await eventually(() => hears(s, after))).toBe(true);
      expect(await hears(s, before)).toBe(false);
    }
    expect(await hears(display, before)).toBe(true); // control: the old room is still heard by who watches it

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
    const resident = await app.socket(alice.token);
    expect(await eventually(() => hears(resident, place))).toBe(true); // control: the place's room is heard by its resident
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
    // Control: had the socket been put in that room, the probe would have reached it.
    app.server.io.of('/').sockets.get(display.id!)!.join(locationAudience(id)[0]);
    expect(await hears(display, id)).toBe(true);
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
    const heard: string[] = [];
    s.on('test:user', (p: string) => heard.push(p));
    app.server.io.to(`user:${bob.id}`).emit('test:user', 'for bob');
    app.server.io.to(`user:${alice.id}`).emit('test:user', 'for alice');
    await s.timeout(5000).emitWithAck('test:round-trip', {});
    expect(heard).toEqual(['for alice']);
  });
});

describe('residents room while the user moves', () => {
  test('when the handshake reads the old place and the move is routed before the socket is connected, then the socket ends in the new place', async () => {
    const alice = await aUser(app);
    const oldPlace = await moveTo(alice);
    holdReadsOf = alice.id;
    try {
      const connecting = app.socket(alice.token);
      await readsHeld(1); // the handshake's read has seen the old place and is held: the socket is not connected yet
      const newPlace = await moveTo(alice); // committed and routed while the socket could not be moved
      holdReadsOf = null;
      heldReads.pop()!();
      const s = await connecting;
      // Connected in the place the handshake read, then moved by the read made once it was connected.
      expect(await eventually(async () => residentsRoomsOf(s).join() === `residents:${newPlace}`)).toBe(true);
      expect(await hears(s, oldPlace)).toBe(false);
      expect(await hears(s, newPlace)).toBe(true);
    } finally {
      holdReadsOf = null;
      onHeld = null;
      for (const release of heldReads.splice(0)) release();
    }
  });

  test('when the read made once connected sees the old place and finishes after the move was routed, then the socket is only in the new place', async () => {
    const alice = await aUser(app);
    const oldPlace = await moveTo(alice);
    holdReadsOf = alice.id;
    try {
      const connecting = app.socket(alice.token);
      await readsHeld(1);
      heldReads.shift()!(); // the handshake's read: the old place
      const s = await connecting;
      await readsHeld(1); // the read made once connected has seen the old place and is held
      const newPlace = await moveTo(alice); // committed and routed: the socket is moved, and reads again
      await readsHeld(2);
      expect(residentsRoomsOf(s)).toEqual([`residents:${newPlace}`]);
      // The worst order: the read that saw the new place finishes first, the stale one last.
      holdReadsOf = null;
      heldReads.pop()!();
      heldReads.pop()!();
      await s.timeout(5000).emitWithAck('test:round-trip', {}); // both reads have been applied (or ignored) by now
      expect(residentsRoomsOf(s)).toEqual([`residents:${newPlace}`]);
      expect(await hears(s, oldPlace)).toBe(false);
      expect(await hears(s, newPlace)).toBe(true);
    } finally {
      holdReadsOf = null;
      onHeld = null;
      for (const release of heldReads.splice(0)) release();
    }
  });

  test('when moves are routed out of order, then the sockets end where the user is', async () => {
    const alice = await aUser(app);
    const first = await moveTo(alice);
    const s = await app.socket(alice.token);
    expect(await eventually(async () => residentsRoomsOf(s).join() === `residents:${first}`)).toBe(true);
    const second = await moveTo(alice);
    // A late, stale event (an earlier move routed after this one) names the previous place.
    domainEvents.publish('user.location_changed', { userId: alice.id, fromLocationId: null, toLocationId: first });
    expect(residentsRoomsOf(s)).toEqual([`residents:${first}`]); // followed at once, then checked by a read
    expect(await eventually(async () => residentsRoomsOf(s).join() === `residents:${second}`)).toBe(true);
  });
});
