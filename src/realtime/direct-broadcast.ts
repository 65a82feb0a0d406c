import type { Server, Socket } from 'socket.io';
import type { Socket as NetSocket } from 'node:net';
import { installedSocketLibraryVersions, uncheckedSocketLibraries, type SocketLibraryVersions } from './socket-library-versions.js';

/**
 * Direct broadcast writes: a broadcast frame goes straight to the socket's TCP connection when nothing can be
 * ahead of it there, instead of through Engine.IO's packet, buffer, flush and write-callback machinery.
 *
 * Why. A post to a location reaches its subscribed sockets by one `io.to(rooms).emit`, encoded once into one
 * WebSocket frame (socket.io-adapter's `_encode` builds `wsPreEncodedFrame`). For each socket the library then
 * still runs, in JS (socket.io 4.8.4, engine.io 6.6.12, ws 8.21.3):
 *   socket.io `Client.writeToEngine` -> engine.io `Socket.write` -> `sendPacket` (a packet object, the
 *   'packetCreate' event, `writeBuffer.push`) -> `flush` ('flush' and 'drain' events on the socket and the
 *   server, `sentCallbackFn.push`) -> websocket transport `send` (`writable = false`) -> ws
 *   `Sender.sendFrame(frame, cb)` (cork, two writes, uncork) -> one write callback per socket that emits 'drain'
 *   and 'ready' and sets `writable` back (and runs `flush` again).
 * At 50 posts/s to 1,000 sockets that is 50,000 such chains a second on one core (docs/realtime-protocol.md, "Fan-out cost").
 * Here the frame is concatenated once per broadcast and each eligible socket gets one `net.Socket.write` with
 * no callback.
 *
 * Where. On each connection's socket.io `Client`, `writeToEngine` (socket.io/dist/client.js) is replaced by
 * `directWriteToEngine`. Every broadcast reaches a socket through it, whichever adapter delivered it:
 * the in-memory `Adapter.broadcast` and `broadcastWithAck` (socket.io-adapter/dist/in-memory-adapter.js) call
 * `socket.client.writeToEngine(encodedPackets, packetOpts)` for each target, and both Redis adapters hand a
 * broadcast from another node to that same `super.broadcast` (@socket.io/redis-adapter/dist/index.js
 * `onmessage`; the sharded one through socket.io-adapter's `ClusterAdapter.onMessage`), as they do for a local
 * one after publishing it. Acks are registered (`socket.acks.set`) and outgoing listeners notified
 * (`notifyOutgoingListeners`) by the adapter before `writeToEngine`, so neither is skipped. A socket's own
 * emits and acks (`Client._packet`) carry no `wsPreEncodedFrame` and take the library's path unchanged.
 *
 * Order. A socket's frames must leave in the order they were sent. The direct write is taken only when nothing
 * sent earlier to that socket is still held above its `net.Socket`:
 * - engine.io `Socket.readyState === 'open'` and `writeBuffer` empty: `sendPacket` pushes every packet to
 *   `writeBuffer` and `flush` hands the whole buffer to the transport at once, so an empty buffer means every
 *   earlier packet was given to the transport;
 * - the transport is the websocket one (not polling, so not mid-upgrade either: engine.io `_maybeUpgrade`
 *   switches `this.transport` only once the upgrade packet arrived) and `writable === true`: the transport sets
 *   it false in `send` and back only in the write callback of the last frame (`_onSentLast`), and `flush` does
 *   nothing while it is false, so `true` means no send of the library is in flight;
 * - the transport hands frames to ws synchronously: pre-encoded ones to `_sender.sendFrame` (websocket.js
 *   `send`), others through `parser.encodePacket` whose callback runs synchronously for strings and buffers
 *   (engine.io-parser `encodePacket`) into `ws.send`;
 * - ws's `Sender` has no queue and is not compressing or reading a Blob (`_state === 0`, DEFAULT, and
 *   `_queue` empty; sender.js `send` enqueues only in the other states) and `sendFrame` writes to the
 *   `net.Socket` at once (cork/write/uncork); ws is `OPEN` and the `net.Socket` writable.
 * So everything earlier for that socket already sits in its `net.Socket`, whose writes keep their order
 * whatever the kernel buffer's state (Node queues them in the stream). Any later packet that takes the
 * library's path finds `writable` still true and is written after ours. In every other case (polling, a send
 * in flight, a frame held, closing, per-message deflate) the library's own `writeToEngine` runs.
 * A `volatile` broadcast is dropped by the library only when `writable` is false, where we never write.
 * With per-message deflate (off in this service: engine.io's default) the server sets the transport's
 * `perMessageDeflate` (engine.io server.js, on every new websocket transport) and the library compresses each
 * socket's copy instead of sending the pre-encoded frame (`_canSendPreEncodedFrame`); so does this file: such a
 * transport takes the library's path.
 * Events: engine.io emits 'packetCreate' and 'flush' (on the connection; 'flush' also on its server) for each
 * packet it sends, and 'drain'. Nothing in this service or in socket.io listens to them, but a connection or
 * server with a 'packetCreate' or 'flush' listener (a tool observing packets) takes the library's path. 'drain'
 * is not kept: the connection's `close()` waits for it only with a non-empty `writeBuffer`, where we do not write.
 *
 * Guards. The four libraries are pinned exactly in package.json, and the versions loaded are checked at start
 * (socket-library-versions.ts): on any other version the direct write is not installed at all, with one log line.
 * Should reading a private field throw all the same, that write and every later one of the server take the
 * library's path (logged once); a field that changed meaning without throwing is what the version check is for.
 *
 * When it can go. When Socket.IO's own broadcast write costs about the same per socket (an engine.io fast path
 * for pre-encoded frames, or a benchmark showing the difference gone), or on upgrading socket.io, engine.io or
 * ws past the versions above, re-check every claim here against their sources and drop this file if one no
 * longer holds; `tests/api/realtime-direct-broadcast.test.ts` checks the order and the fallbacks, and
 * `realtime-direct-broadcast-guards.test.ts` the guards.
 */

/** What the broadcasts of one server wrote: straight to the connection, or through the library's path. */
export interface BroadcastWriteCounts {
  direct: number;
  library: number;
}

/** The internals this relies on (untyped in the libraries' declarations). */
interface EngineTransport {
  name: string;
  writable: boolean;
  perMessageDeflate?: unknown;
  socket?: WsSocket;
}
interface WsSocket {
  readyState: number;
  _sender?: { _state: number; _queue: unknown[] } | null;
  _socket?: NetSocket | null;
}
interface EngineConnection {
  readyState: string;
  writeBuffer: unknown[];
  transport: EngineTransport;
  server: { listenerCount(event: string): number };
  listenerCount(event: string): number;
}
interface PacketOptions {
  /** Set by socket.io-adapter's `_encode` on a broadcast that encodes to one string: ws `Sender.frame()`'s [header, payload]. */
  wsPreEncodedFrame?: Buffer[];
  volatile?: boolean;
  [frameBytes]?: Buffer;
}
interface EngineClient {
  conn: EngineConnection;
  writeToEngine(encodedPackets: unknown, opts: PacketOptions): void;
}

const WS_OPEN = 1;
const SENDER_DEFAULT = 0;
/** The frame as one buffer, made on the broadcast's first direct write and shared by its other targets. */
const frameBytes = Symbol('frameBytes');
const counts = new WeakMap<Server, BroadcastWriteCounts>();
const installedOn = new WeakMap<Server, { on: boolean }>();

export interface DirectBroadcastOptions {
  /** Where the fast path says why it is off. */
  log: { warn(obj: object, msg: string): void };
  /** The socket libraries' versions as loaded (read from their package.json files when absent); tests pass others. */
  libraryVersions?: SocketLibraryVersions;
}

/**
 * Installs the direct write on every connection of `io` when the socket libraries are the checked versions;
 * returns the counts of what its broadcasts wrote (both stay 0 when it is off).
 */
export function directBroadcastWrites(io: Server, options: DirectBroadcastOptions): BroadcastWriteCounts {
  const written: BroadcastWriteCounts = { direct: 0, library: 0 };
  counts.set(io, written);
  const unchecked = uncheckedSocketLibraries(options.libraryVersions ?? installedSocketLibraryVersions());
  const state = { on: unchecked.length === 0 };
  installedOn.set(io, state);
  if (!state.on) {
    options.log.warn({ unchecked }, 'direct broadcast writes are off: socket library versions differ from the ones their internals were checked against');
    return written;
  }
  let libraryWrite: EngineClient['writeToEngine'] | null = null;

  // One function per server, shared by its clients (no closure per connection); `this` is the client.
  function directWriteToEngine(this: EngineClient, encodedPackets: unknown, opts: PacketOptions): void {
    if (opts.wsPreEncodedFrame !== undefined) {
      const frame = state.on ? directFrame(this.conn, opts) : null;
      if (frame) {
        frame.tcp.write(frame.bytes);
        written.direct++;
        return;
      }
      written.library++;
    }
    libraryWrite!.call(this, encodedPackets, opts);
  }

  /** The connection and the frame's bytes when the frame may be written straight to it; null: the library's path. */
  function directFrame(conn: EngineConnection, opts: PacketOptions): { tcp: NetSocket; bytes: Buffer } | null {
    try {
      const tcp = directTarget(conn);
      return tcp && { tcp, bytes: (opts[frameBytes] ??= Buffer.concat(opts.wsPreEncodedFrame!)) };
    } catch (err) {
      // A private field is not what it was: nothing was written yet, so the library's write is safe, from now on.
      state.on = false;
      options.log.warn({ err }, "direct broadcast writes are off: reading the socket libraries' internals failed");
      return null;
    }
  }

  io.on('connection', (socket: Socket) => {
    const client = socket.client as unknown as EngineClient;
    if (client.writeToEngine === directWriteToEngine) return; // another namespace of the same connection
    libraryWrite ??= Object.getPrototypeOf(client).writeToEngine as EngineClient['writeToEngine'];
    client.writeToEngine = directWriteToEngine;
  });
  return written;
}

/** The counts of `io`'s broadcast writes, when direct writes are installed on it. */
export function broadcastWriteCounts(io: Server): BroadcastWriteCounts | undefined {
  return counts.get(io);
}

/** Whether `io`'s broadcasts may still take the direct write (off on other library versions or after a failed read). */
export function directBroadcastWritesOn(io: Server): boolean {
  return installedOn.get(io)?.on ?? false;
}

/** The connection's `net.Socket` when a frame written to it now comes after everything sent before (see above). */
function directTarget(conn: EngineConnection): NetSocket | null {
  if (conn.readyState !== 'open' || conn.writeBuffer.length !== 0) return null;
  if (conn.listenerCount('packetCreate') !== 0 || conn.listenerCount('flush') !== 0 || conn.server.listenerCount('flush') !== 0) return null;
  const transport = conn.transport;
  if (transport.name !== 'websocket' || transport.writable !== true || transport.perMessageDeflate) return null;
  const ws = transport.socket;
  if (!ws || ws.readyState !== WS_OPEN) return null;
  const sender = ws._sender;
  if (!sender || sender._state !== SENDER_DEFAULT || sender._queue.length !== 0) return null;
  const tcp = ws._socket;
  return tcp && tcp.writable ? tcp : null;
}
