import { platform } from '../platform/index.js';
import type { RealtimeDeps } from './clock.js';
import { RESIDENTS_PREFIX, residentsRoom } from './rooms.js';
import type { AppSocket } from './socket-types.js';

/**
 * Which residents' room a signed-in socket is in: the one of the location its user has now.
 *
 * The membership comes from a read made after the latest change is known: on connect (after the socket is
 * in `user:<id>`, so any move that commits later reaches it) and after every `user.location_changed`. Reads
 * race (a connect-time read may see the old place and finish after the move was routed), so each socket
 * numbers its reads and only the latest one started may apply what it read.
 */
export async function reconcileResidency(socket: AppSocket, deps: RealtimeDeps): Promise<void> {
  const userId = socket.data.session?.user.id;
  if (!userId) return;
  const seq = ++socket.data.residencySeq;
  let locationId: string | null;
  try {
    locationId = await deps.locationOf(userId);
  } catch (err) {
    platform.log.error({ err }, 'could not read the location of a socket user');
    return;
  }
  if (seq !== socket.data.residencySeq || !socket.connected || socket.data.session?.user.id !== userId) return;
  setResidentsRoom(socket, locationId);
}

/** Move the socket to this location's residents' room (none: null), leaving any other. */
export function setResidentsRoom(socket: AppSocket, locationId: string | null): void {
  const target = locationId ? residentsRoom(locationId) : null;
  for (const room of [...socket.rooms]) {
    if (room.startsWith(RESIDENTS_PREFIX) && room !== target) void socket.leave(room);
  }
  if (target && !socket.rooms.has(target)) void socket.join(target);
}

/** A signed-out socket lives nowhere; a read still running must not put it back. */
export function leaveResidency(socket: AppSocket): void {
  socket.data.residencySeq++;
  setResidentsRoom(socket, null);
}
