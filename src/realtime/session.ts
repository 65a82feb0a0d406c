import { z } from 'zod';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable, SERVICE_UNAVAILABLE_BODY } from '../core/database-errors.js';
import { invalidToken } from '../core/errors.js';
import { platform } from '../platform/index.js';
import { zodToFieldErrors } from '../core/validation.js';
import { forgetCaller, socketContext, startSession } from './caller.js';
import type { RealtimeDeps } from './clock.js';
import { cancelExpiry, scheduleExpiry } from './expiry.js';
import { leaveResidency } from './residency.js';
import { userRoom } from './rooms.js';
import { catchUpOwnRooms, enterOwnRooms, readOwnRooms, type OwnRooms } from './own-rooms.js';
import type { AppSocket } from './socket-types.js';
import type { ConnectionCaps } from './socket-limits.js';
import { reauthorizeSubscriptions } from './subscriptions.js';

/** Signing a socket in (handshake, auth:renew) and out (an operation that ends the session: logout). */

const renewInput = z.object({ token: z.string({ error: (issue) => (issue.input === undefined ? 'This field is required.' : 'Not a valid string.') }) });

/**
 * `auth:renew {token}`: a fresh token for the same user keeps the socket alive; an anonymous socket signs in.
 *
 * The token is checked against the database, and a change about the user (logout, revoked family, reset,
 * deactivation: `caller_changed`) may reach this node while that read runs. Its recheck of the socket then
 * sees a session that the renewal is about to replace, and the renewal would cache a caller read before the
 * change. So a renewal during which the socket's access changed reads again, until one read saw no change.
 */
const RENEW_READS = 3;

export async function renewSession(socket: AppSocket, rawInput: unknown, deps: RealtimeDeps, caps?: ConnectionCaps): Promise<{ status: number; body: unknown }> {
  const parsed = renewInput.safeParse(rawInput);
  if (!parsed.success) return { status: 400, body: zodToFieldErrors(parsed.error) };
  const token = parsed.data.token.replace(/^Bearer\s+/i, '');
  let auth: Awaited<ReturnType<RealtimeDeps['authenticate']>> = null;
  let settled = false;
  try {
    for (let read = 0; read < RENEW_READS && !settled; read++) {
      const epoch = socket.data.accessEpoch;
      auth = await deps.authenticate(token);
      settled = epoch === socket.data.accessEpoch;
      if (!auth) break;
    }
  } catch (err) {
    // The token could not be checked: the session stays as it is (the current token still runs to its expiry)
    // and the client is told when to try again, instead of a 401 that would sign the person out.
    if (!isDatabaseUnavailable(err)) throw err;
    platform.log.error({ err }, 'could not check the token of auth:renew');
    return { status: 503, body: { ...SERVICE_UNAVAILABLE_BODY, retry_after: DATABASE_RETRY_AFTER_SECONDS } };
  }
  if (!auth) return refusedToken();
  // An anonymous socket that signs in gets what a socket authenticated at the handshake has, read before it is
  // signed in (own-rooms.ts); when that read fails it stays anonymous, as a handshake would be refused.
  let rooms: OwnRooms | null = null;
  if (!socket.data.session && socket.connected) {
    try {
      rooms = await readOwnRooms(auth.user.id, deps);
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      platform.log.error({ err }, 'could not read the rooms of a socket signing in with auth:renew');
      return { status: 503, body: { ...SERVICE_UNAVAILABLE_BODY, retry_after: DATABASE_RETRY_AFTER_SECONDS } };
    }
  }
  // Read after the rooms: another renewal may have signed the socket in meanwhile.
  const current = socket.data.session;
  if (current && auth.user.id !== current.user.id) return refusedToken();
  if (current) rooms = null;
  if (!socket.connected) return { status: 200, body: { expires_at: new Date(auth.expiresAt).toISOString() } };
  if (!current && caps) {
    const refusal = caps.admitUser(socket, auth.user.id);
    if (refusal) return { status: 429, body: { detail: refusal } };
  }
  startSession(socket, auth, deps.clock);
  // Still changing after every read: keep nothing cached, the next event asks the database.
  if (!settled) forgetCaller(socket);
  socket.data.accessEpoch++;
  scheduleExpiry(socket, deps.clock);
  if (rooms) {
    enterOwnRooms(socket, auth.user.id, rooms);
    void catchUpOwnRooms(socket, deps);
  }
  return { status: 200, body: { expires_at: new Date(auth.expiresAt).toISOString() } };
}

function refusedToken(): { status: number; body: unknown } {
  const refused = invalidToken();
  return { status: refused.status, body: refused.body };
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
