import { platform } from '../platform/index.js';
import { hiddenAuthorIdsFor } from '../modules/policy/visibility.js';
import type { RealtimeDeps } from './clock.js';
import { reconcileResidency, setResidentsRoom } from './residency.js';
import { HIDING_PREFIX, hidingRoom, userRoom } from './rooms.js';
import type { AppSocket } from './socket-types.js';

/**
 * The rooms a signed-in socket is in without asking: `user:<id>`, the residents' room of the place its user lives in,
 * and the hiding room of everyone whose posts and comments it must not hear (rooms.ts, hidingRoom).
 *
 * They are read BEFORE the socket hears that it is connected (in the handshake, or before auth:renew signs an
 * anonymous socket in) and joined all at once: a post made the moment a client is connected reaches it, and no post
 * of someone it hides can slip in before its hiding rooms are joined. A read that fails refuses the connection (the
 * renewal) rather than admitting a socket that would hear someone it hides: fail closed.
 */
export interface OwnRooms {
  locationId: string | null;
  hiddenAuthorIds: string[];
}

/** Throws when the database cannot answer: the caller refuses the socket (or the renewal). */
export async function readOwnRooms(userId: string, deps: RealtimeDeps): Promise<OwnRooms> {
  const [hiddenAuthorIds, locationId] = await Promise.all([hiddenAuthorIdsFor(userId), deps.locationOf(userId)]);
  return { hiddenAuthorIds, locationId };
}

/**
 * Joins them, synchronously: every adapter (local, both Redis ones) keeps a node's room membership in its own memory,
 * so the socket is in every room before the next line runs. Any residents-room read still running is superseded.
 */
export function enterOwnRooms(socket: AppSocket, userId: string, rooms: OwnRooms): void {
  const hiding = new Set(rooms.hiddenAuthorIds.map(hidingRoom));
  // A socket that signed out and signs in as someone else does not keep the hiding rooms of the one before.
  for (const room of [...socket.rooms]) if (room.startsWith(HIDING_PREFIX) && !hiding.has(room)) void socket.leave(room);
  void socket.join([userRoom(userId), ...hiding]);
  socket.data.residencySeq++;
  setResidentsRoom(socket, rooms.locationId);
}

/**
 * Once the socket is connected, the same reads again. Socket.IO applies room changes (`socketsJoin` of a block's
 * hiding room, a move to another place) only to connected sockets, so one routed while the handshake ran missed this
 * socket; these reads start after it is connected, and see any change that committed before. Hiding rooms are only
 * added here, never left: a read that began before a block must not take the socket out of the room the block's
 * route has just put it in (an unblock during the handshake is made good at the next connection). The residents'
 * room is reconciled by residency.ts, whose latest read wins. A failure keeps the rooms the handshake joined.
 */
export async function catchUpOwnRooms(socket: AppSocket, deps: RealtimeDeps): Promise<void> {
  const userId = socket.data.session?.user.id;
  if (!userId) return;
  const residency = reconcileResidency(socket, deps);
  try {
    const authors = await hiddenAuthorIdsFor(userId);
    if (socket.connected && socket.data.session?.user.id === userId) {
      const missing = authors.map(hidingRoom).filter((room) => !socket.rooms.has(room));
      if (missing.length) void socket.join(missing);
    }
  } catch (err) {
    platform.log.warn({ err, userId }, 'could not read the hidden authors of a socket again after its handshake');
  }
  await residency;
}
