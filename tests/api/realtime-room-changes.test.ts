import type { Socket } from 'socket.io-client';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aResident } from '../builders/locations.js';
import { aPost, aResidentOf } from '../builders/posts.js';
import { aCommunity } from '../builders/communities.js';
import { channelRoom } from '../../src/core/channels.js';
import { hidingRoom, postRoom } from '../../src/realtime/rooms.js';
import { domainEvents } from '../../src/core/events.js';

/**
 * A change of room membership made by a domain event takes effect on the node that routes it before anything else
 * happens there (src/realtime/event-routes.ts). The classic Redis adapter (the default when REDIS_URL is set, as in
 * CI) applies socketsJoin, socketsLeave and disconnectSockets on its own node only when its request comes back from
 * Redis, while an emit reaches this node's sockets at once: a socket told `community:deleted` could still be in the
 * room, and a post pushed right after a block could still reach the blocked person here. Each test publishes the
 * event on the bus (the path a committed transaction takes) and reads this node's rooms in the same tick.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const subscribe = (socket: Socket, channel: string, id: string) => socket.timeout(5000).emitWithAck('subscribe', { channel, id });
/** The rooms this node's copy of the client's socket is in, read now (no await between the event and this). */
const roomsOf = (socket: Socket): Set<string> | undefined => app.server.io.of('/').sockets.get(socket.id!)?.rooms;

describe('room changes made by an event are in place on this node at once', () => {
  test('when a community is deleted, then its subscribers are out of its room in the same tick as community:deleted', async () => {
    const owner = await aResident(app);
    const club = await aCommunity(app, owner);
    const socket = await app.socket((await aResident(app)).token);
    expect(await subscribe(socket, 'community', club.id)).toMatchObject({ status: 200 });
    const room = channelRoom('community', club.id);
    expect(roomsOf(socket)?.has(room)).toBe(true);

    domainEvents.publish('community.deleted', { communityId: club.id });
    expect(roomsOf(socket)?.has(room)).toBe(false);
    expect(app.server.io.of('/').adapter.rooms.get(room)).toBeUndefined();
  });

  test('when a post is hidden by moderation, then its watchers leave its room at once, its author stays', async () => {
    const author = await aResidentOf(app);
    const post = await aPost(app, author);
    const watcher = await app.socket((await aResident(app)).token);
    const authorSocket = await app.socket(author.token);
    for (const s of [watcher, authorSocket]) expect(await subscribe(s, 'post', post.id)).toMatchObject({ status: 200 });

    domainEvents.publish('post.deleted', { postId: post.id, locationId: null, communityId: null, keptFor: author.id });
    expect(roomsOf(watcher)?.has(postRoom(post.id))).toBe(false);
    expect(roomsOf(authorSocket)?.has(postRoom(post.id))).toBe(true);
  });

  test('when a block is made and undone, then the viewer\'s sockets enter and leave the author\'s hiding room at once', async () => {
    const viewer = await aResident(app);
    const author = await aResident(app);
    const socket = await app.socket(viewer.token);

    domainEvents.publish('safety.hiding_changed', { changes: [{ viewerId: viewer.id, authorId: author.id, hidden: true }] });
    expect(roomsOf(socket)?.has(hidingRoom(author.id))).toBe(true);
    domainEvents.publish('safety.hiding_changed', { changes: [{ viewerId: viewer.id, authorId: author.id, hidden: false }] });
    expect(roomsOf(socket)?.has(hidingRoom(author.id))).toBe(false);
  });

  test('when an account is deactivated, then its sockets on this node are closed at once', async () => {
    const user = await aResident(app);
    const socket = await app.socket(user.token);
    expect(roomsOf(socket)).toBeDefined();

    domainEvents.publish('user.deactivated', { userId: user.id });
    expect(app.server.io.of('/').sockets.get(socket.id!)).toBeUndefined();
  });
});
