import type { Clock } from './clock.js';
import type { AppSocket } from './socket-types.js';

/** When the access token runs out on a live socket: tell the client, then disconnect (unless renewed). */
export function scheduleExpiry(socket: AppSocket, clock: Clock): void {
  clock.clearTimeout(socket.data.expiryTimer);
  socket.data.expiryTimer = undefined;
  const session = socket.data.session;
  if (!session) return;
  socket.data.expiryTimer = clock.setTimeout(() => {
    const current = socket.data.session;
    if (!current) return;
    // Renewed meanwhile, or a timer capped below the real delay: wait again.
    if (current.expiresAt > clock.now()) return scheduleExpiry(socket, clock);
    socket.emit('auth:expired', {});
    socket.disconnect(true);
  }, session.expiresAt - clock.now());
}

export function cancelExpiry(socket: AppSocket, clock: Clock): void {
  clock.clearTimeout(socket.data.expiryTimer);
  socket.data.expiryTimer = undefined;
}
