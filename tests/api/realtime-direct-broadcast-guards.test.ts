import crypto from 'node:crypto';
import type { Socket } from 'socket.io-client';
import type { Server, Socket as ServerSocket } from 'socket.io';
import { broadcastWriteCounts, directBroadcastWritesOn } from '../../src/realtime/direct-broadcast.js';
import { CHECKED_SOCKET_LIBRARIES, installedSocketLibraryVersions, uncheckedSocketLibraries } from '../../src/realtime/socket-library-versions.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The guards of the direct broadcast write (src/realtime/direct-broadcast.ts), which reads private fields of
 * socket.io, engine.io and ws: it is installed only on the library versions it was checked against, and a private
 * field that cannot be read sends the frame through the library's own write. Either way every broadcast arrives.
 */
const serverSocket = (io: Server, client: Socket): ServerSocket => io.of('/').sockets.get(client.id!)!;

/** Every `test:seq` number the socket receives, in arrival order. */
function collect(client: Socket): number[] {
  const got: number[] = [];
  client.on('test:seq', (n: number) => got.push(n));
  return got;
}

/** A round trip through the server: everything sent to the socket before it has arrived when it resolves. */
const roundTrip = (client: Socket) => client.timeout(5000).emitWithAck('test:unknown-event', {});

async function aRoomOf(app: TestApp, n: number): Promise<{ room: string; clients: Socket[] }> {
  const room = `test:${crypto.randomUUID()}`;
  const clients = await Promise.all(Array.from({ length: n }, () => app.socket()));
  for (const c of clients) await serverSocket(app.server.io, c).join(room);
  for (const c of clients) await roundTrip(c);
  return { room, clients };
}

test('when the installed socket libraries are read, then they are exactly the versions direct-broadcast.ts was checked against', () => {
  // package.json pins these; a bump that forgets the check (or the check that forgets the pin) fails here.
  expect(installedSocketLibraryVersions()).toEqual(CHECKED_SOCKET_LIBRARIES);
  expect(uncheckedSocketLibraries(installedSocketLibraryVersions())).toEqual([]);
});

describe('when a socket library is not the checked version', () => {
  let app: TestApp;
  beforeAll(async () => {
    const newerEngine = { ...installedSocketLibraryVersions(), 'engine.io': '6.7.0' };
    app = await startTestApp({ RATE_LIMITS: 'off' }, { realtime: { socketLibraryVersions: newerEngine } });
  });
  afterAll(async () => {
    await app?.stop();
  });

  test('then the direct write is not installed and broadcasts arrive through the library', async () => {
    const io = app.server.io;
    const { room, clients } = await aRoomOf(app, 3);
    const got = clients.map(collect);

    io.to(room).emit('test:seq', 1);
    io.to(room).emit('test:seq', 2);

    for (const c of clients) await roundTrip(c);
    expect(got).toEqual([[1, 2], [1, 2], [1, 2]]);
    expect(directBroadcastWritesOn(io)).toBe(false);
    expect(broadcastWriteCounts(io)).toEqual({ direct: 0, library: 0 });
    // The connections write through socket.io's own method, not one set on them.
    for (const c of clients) expect(Object.hasOwn(serverSocket(io, c).client, 'writeToEngine')).toBe(false);
  });
});

describe('when reading a private field throws at run time', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ RATE_LIMITS: 'off' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  test("then that broadcast takes the library's write and arrives, and the server's later broadcasts do too", async () => {
    const io = app.server.io;
    expect(directBroadcastWritesOn(io)).toBe(true);
    const { room, clients } = await aRoomOf(app, 2);
    const got = clients.map(collect);
    // As if a newer ws had renamed the sender's queue: reading its length throws a TypeError.
    const sender = (serverSocket(io, clients[0]).conn.transport as unknown as { socket: { _sender: { _queue: unknown } } }).socket._sender;
    const queue = sender._queue;
    sender._queue = undefined;
    const before = { ...broadcastWriteCounts(io)! };

    try {
      io.to(room).emit('test:seq', 1);
      expect(directBroadcastWritesOn(io)).toBe(false);
      io.to(room).emit('test:seq', 2);
    } finally {
      sender._queue = queue;
    }

    for (const c of clients) await roundTrip(c);
    expect(got).toEqual([[1, 2], [1, 2]]);
    // The first broadcast may have reached the other socket directly before the failed read; nothing after it did.
    const after = broadcastWriteCounts(io)!;
    expect(after.direct - before.direct).toBeLessThanOrEqual(1);
    expect(after.direct - before.direct + after.library - before.library).toBe(4);
  });
});
