import crypto from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { nextEvent, startTestApp, unique, type TestApp, eventually } from '../helpers/test-app.js';
import { aUser } from '../builders/users.js';
import { channelRoom, defineChannel } from '../../src/core/channels.js';
import { forbidden } from '../../src/core/errors.js';
import { domainEvents } from '../../src/core/events.js';
import type { LocationBody } from '../../src/modules/locations/locations.serializer.js';

/**
 * Channel rights are checked at subscribe time; when a right ends later the socket must leave the room.
 * A throwaway channel (`club`) with an allow-list the tests change stands for a private community.
 */
const members = new Set<string>();
const isMember = (clubId: string, userId: string | undefined) => members.has(`${clubId}/${userId}`);
/** While set, authorize decides first and then waits: the window in which a right can end mid-subscribe. */
let gate: Promise<void> | null = null;
let reachedGate: (() => void) | null = null;
defineChannel({
  name: 'club',
  authorize: async (id, ctx) => {
    const allowed = isMember(id, ctx.user?.id);
    if (gate) {
      reachedGate?.();
      await gate;
    }
    if (!allowed) throw forbidden();
  },
});
// Channels named like server rooms: they must not alias `user:<id>` or `residents:<id>`.
defineChannel({ name: 'user', authorize: async () => undefined });
defineChannel({ name: 'residents', authorize: async () => undefined });

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const subscribe = (s: Socket, channel: string, id: string) => s.timeout(5000).emitWithAck('subscribe', { channel, id });
/** Server-side (this node, the only one): is this client socket in that channel's room? */
const inRoom = async (s: Socket, channel: string, id: string) => app.server.io.of('/').sockets.get(s.id!)?.rooms.has(channelRoom(channel, id)) ?? false;


describe('when a channel right ends', () => {
  test('when channel.access_ended is published, then every socket of that user leaves that room at once, and nothing else changes', async () => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const club = crypto.randomUUID();
    const otherClub = crypto.randomUUID();
    for (const [c, u] of [[club, alice.id], [otherClub, alice.id], [club, bob.id]]) members.add(`${c}/${u}`);
    const phone = await app.socket(alice.token);
    const laptop = await app.socket(alice.token);
    const bobs = await app.socket(bob.token);
    for (const [s, c] of [[phone, club], [phone, otherClub], [laptop, club], [bobs, club]] as const) expect(await subscribe(s, 'club', c)).toMatchObject({ status: 200 });
    expect(await inRoom(phone, 'club', club)).toBe(true); // control: the room is joined

    members.delete(`${club}/${alice.id}`);
    domainEvents.publish('channel.access_ended', { channel: 'club', id: club, userId: alice.id });

    expect(await inRoom(phone, 'club', club)).toBe(false);
    expect(await inRoom(laptop, 'club', club)).toBe(false);
    expect(await inRoom(phone, 'club', otherClub)).toBe(true);
    expect(await inRoom(bobs, 'club', club)).toBe(true);
    // The socket's own record agrees: there is nothing left to unsubscribe from.
    expect(await phone.timeout(5000).emitWithAck('unsubscribe', { channel: 'club', id: club })).toEqual({ status: 404, body: { detail: 'Not found.' } });
    // And subscribing again is refused.
    expect(await subscribe(phone, 'club', club)).toEqual({ status: 403, body: { detail: 'You do not have permission to perform this action.' } });
  });

  test('when the right ends while the subscribe is being authorized, then the subscribe is refused and the room is not joined', async () => {
    const alice = await aUser(app);
    const club = crypto.randomUUID();
    members.add(`${club}/${alice.id}`);
    const s = await app.socket(alice.token);
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const atGate = new Promise<void>((resolve) => (reachedGate = resolve));
    try {
      const pending = subscribe(s, 'club', club);
      // authorize has already decided "allowed" and waits at the gate; now the right ends.
      await atGate;
      members.delete(`${club}/${alice.id}`);
      domainEvents.publish('channel.access_ended', { channel: 'club', id: club, userId: alice.id });
      gate = null;
      open();
      expect(await pending).toEqual({ status: 403, body: { detail: 'You do not have permission to perform this action.' } });
    } finally {
      gate = null;
      reachedGate = null;
      open?.();
    }
    expect(await inRoom(s, 'club', club)).toBe(false);
  });

  test("when user.access_changed is published, then the user's subscriptions are checked again and the ones it lost are left", async () => {
    const alice = await aUser(app);
    const kept = crypto.randomUUID();
    const lost = crypto.randomUUID();
    members.add(`${kept}/${alice.id}`).add(`${lost}/${alice.id}`);
    const s = await app.socket(alice.token);
    expect(await subscribe(s, 'club', kept)).toMatchObject({ status: 200 });
    expect(await subscribe(s, 'club', lost)).toMatchObject({ status: 200 });

    members.delete(`${lost}/${alice.id}`);
    domainEvents.publish('user.access_changed', { userId: alice.id });

    expect(await eventually(async () => !(await inRoom(s, 'club', lost)))).toBe(true);
    expect(await inRoom(s, 'club', kept)).toBe(true);
  });
});

describe('channel rooms never alias server rooms', () => {
  test.each(['user', 'residents'])('when a socket subscribes to a channel named %s with the id of a server room, then it hears nothing pushed to that server room', async (channel) => {
    const alice = await aUser(app);
    const bob = await aUser(app);
    const home = await app.rest('POST', '/api/users/update-location/', { token: bob.token, body: { country: `Country ${unique()}`, city: `City ${unique()}` } });
    // The server room the channel's name would alias: bob's user room, or the residents' room bob lives in.
    const id: string = channel === 'user' ? bob.id : home.body.location.id;
    const serverRoom = `${channel}:${id}`;
    const aliceSocket = await app.socket(alice.token);
    const bobSocket = await app.socket(bob.token);
    expect(await eventually(async () => (await app.server.io.local.in(serverRoom).fetchSockets()).some((x) => x.id === bobSocket.id))).toBe(true);
    expect(await subscribe(aliceSocket, channel, id)).toEqual({ status: 200, body: { channel, id } });

    const probe = crypto.randomUUID();
    const heardByAlice: string[] = [];
    aliceSocket.on('test:server-room', (p: string) => heardByAlice.push(p));
    const heardByBob = nextEvent(bobSocket, 'test:server-room');
    app.server.io.to(serverRoom).emit('test:server-room', probe);
    expect(await heardByBob).toBe(probe);
    await aliceSocket.timeout(5000).emitWithAck('users.profile', {}); // a round trip: a push would have arrived before it
    expect(heardByAlice).toEqual([]);
    expect(await inRoom(aliceSocket, channel, id)).toBe(true);
  });
});

test('when a socket both lives in a location and subscribed to it, then location:updated reaches it once', async () => {
  const alice = await aUser(app);
  const res = await app.rest('POST', '/api/users/update-location/', { token: alice.token, body: { country: `Country ${unique()}`, city: `City ${unique()}` } });
  const location = res.body.location as LocationBody;
  const resident = await app.socket(alice.token);
  const watcher = await app.socket();
  expect(await subscribe(resident, 'location', location.id)).toMatchObject({ status: 200 });
  expect(await subscribe(watcher, 'location', location.id)).toMatchObject({ status: 200 });
  expect(await eventually(async () => (await app.server.io.local.in(`residents:${location.id}`).fetchSockets()).some((x) => x.id === resident.id))).toBe(true);

  const heard: LocationBody[] = [];
  resident.on('location:updated', (l: LocationBody) => heard.push(l));
  const watcherHeard = nextEvent(watcher, 'location:updated');
  domainEvents.publish('location.updated', { location });
  expect(await watcherHeard).toEqual(location);
  await resident.timeout(5000).emitWithAck('users.profile', {});
  expect(heard).toEqual([location]);
});
