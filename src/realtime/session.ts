import { z } from 'zod';
import { invalidToken } from '../core/errors.js';
import { zodToFieldErrors } from '../core/validation.js';
import { authenticateAccessToken } from '../modules/accounts/tokens.js';
import { socketContext, startSession } from './caller.js';
import type { RealtimeDeps } from './clock.js';
import { cancelExpiry, scheduleExpiry } from './expiry.js';
import { leaveResidency, reconcileResidency } from './residency.js';
import { userRoom } from './rooms.js';
import type { AppSocket } from './socket-types.js';
import { reauthorizeSubscriptions } from './subscriptions.js';

/** Signing a socket in (handshake, auth:renew) and out (an operation that ends the session: logout). */

/** Every device of a user hears `user:<id>` (joined first, so no later move is missed), and lives where its user lives. */
export function joinOwnRooms(socket: AppSocket, deps: RealtimeDeps): void {
  const session = socket.data.session;
  if (!session) return;
  void socket.join(userRoom(session.user.id));
  void reconcileResidency(socket, deps);
}

const renewInput = z.object({ token: z.string({ error: (issue) => (issue.input === undefined ? 'This field is required.' : 'Not a valid string.') }) });

/** `auth:renew {token}`: a fresh token for the same user keeps the socket alive; an anonymous socket signs in. */
export async function renewSession(socket: AppSocket, rawInput: unknown, deps: RealtimeDeps): Promise<{ status: number; body: unknown }> {
  const parsed = renewInput.safeParse(rawInput);
  if (!parsed.success) return { status: 400, body: zodToFieldErrors(parsed.error) };
  const auth = await authenticateAccessToken(parsed.data.token.replace(/^Bearer\s+/i, ''));
  const current = socket.data.session;
  if (!auth || (current && auth.user.id !== current.user.id)) {
    const refused = invalidToken();
    return { status: refused.status, body: refused.body };
  }
  if (!socket.connected) return { status: 200, body: { expires_at: new Date(auth.expiresAt).toISOString() } };
  startSession(socket, auth, deps.clock);
  socket.data.accessEpoch++;
  scheduleExpiry(socket, deps.clock);
  // An anonymous socket that signs in gets what a socket authenticated at the handshake has.
  if (!current) joinOwnRooms(socket, deps);
  return { status: 200, body: { expires_at: new Date(auth.expiresAt).toISOString() } };
}

/**
 * The socket's session ended (accounts.logout over this socket): it becomes anonymous, hears nothing meant
 * for its user, and keeps only the subscriptions an anonymous caller may have.
 */
export async function endSession(socket: AppSocket, deps: RealtimeDeps): Promise<void> {
  const session = socket.data.session;
  if (!session) return;
  socket.data.session = null;
  socket.data.accessEpoch++;
  cancelExpiry(socket, deps.clock);
  void socket.leave(userRoom(session.user.id));
  leaveResidency(socket);
  await reauthorizeSubscriptions(socket, socketContext(socket, null));
}
