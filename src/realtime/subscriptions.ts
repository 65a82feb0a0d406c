import { z } from 'zod';
import { channelRoom, findChannel } from '../core/channels.js';
import type { RequestContext } from '../core/context.js';
import { AppError, INTERNAL_ERROR_BODY, MESSAGES, invalidToken } from '../core/errors.js';
import { zodToFieldErrors, zUuid } from '../core/validation.js';
import { platform } from '../platform/index.js';
import { subscriptionsOf } from './caller.js';
import type { AppSocket } from './socket-types.js';

/**
 * `subscribe {channel, id}`: the module that owns the channel decides whether this caller may watch
 * that object; only then does the socket join the room. Acks mirror an operation's `{status, body}`.
 * The socket's rooms are the one record of its subscriptions (see caller.ts subscriptionsOf), so a room
 * left from another node (channel.access_ended) leaves no stale record behind.
 *
 * A socket holds at most `maxSubscriptions` (SOCKET_MAX_SUBSCRIPTIONS, DESIGN.md section 5): what it costs to
 * push to, re-check on a change of rights, and catch up with `realtime.sync` grows with them. One more is acked
 * 429; a room already held is answered 200 again without taking a slot. The count is checked before the
 * access check (a refusal costs no query) and again just before the join, with no wait between the check and
 * the join, so subscribes sent at once cannot all slip past it.
 */
const subscriptionInput = z.object({ channel: z.string({ error: 'This field is required.' }), id: zUuid() });

type Result = { status: number; body: unknown };

export async function handleSubscribe(socket: AppSocket, rawInput: unknown, callerContext: () => Promise<RequestContext>, maxSubscriptions: number): Promise<Result> {
  const parsed = subscriptionInput.safeParse(rawInput);
  if (!parsed.success) return { status: 400, body: zodToFieldErrors(parsed.error) };
  const { channel, id } = parsed.data;
  const definition = findChannel(channel);
  if (!definition) return { status: 400, body: { channel: [`Unknown channel "${channel}".`] } };
  const room = channelRoom(channel, id);
  const full = overSubscriptionCap(socket, room, maxSubscriptions);
  if (full) return full;
  // A right that ends while authorize runs (access epoch moved) must not be undone by the join that follows:
  // then the caller and its right are checked again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const epoch = socket.data.accessEpoch;
    try {
      const ctx = await callerContext();
      // As on an operation where a token is optional: a token no longer accepted is told, not ignored.
      if (ctx.authError) throw invalidToken();
      await definition.authorize(id, ctx);
    } catch (err) {
      if (err instanceof AppError) return { status: err.status, body: err.body };
      platform.log.error({ err, channel }, 'subscribe failed');
      return { status: 500, body: INTERNAL_ERROR_BODY };
    }
    if (socket.data.accessEpoch !== epoch) continue;
    const fullNow = overSubscriptionCap(socket, room, maxSubscriptions);
    if (fullNow) return fullNow;
    if (socket.connected) await socket.join(room);
    return { status: 200, body: { channel, id } };
  }
  return { status: 403, body: { detail: MESSAGES.forbidden } };
}

/** The 429 answer when joining `room` would take the socket past its cap; null when it may (or holds it already). */
function overSubscriptionCap(socket: AppSocket, room: string, maxSubscriptions: number): Result | null {
  if (socket.rooms.has(room) || subscriptionsOf(socket).length < maxSubscriptions) return null;
  return { status: 429, body: { detail: tooManySubscriptions(maxSubscriptions) } };
}

export const tooManySubscriptions = (max: number) => `Too many subscriptions on this connection (at most ${max}): unsubscribe from one first.`;

export async function handleUnsubscribe(socket: AppSocket, rawInput: unknown): Promise<Result> {
  const parsed = subscriptionInput.safeParse(rawInput);
  if (!parsed.success) return { status: 400, body: zodToFieldErrors(parsed.error) };
  const { channel, id } = parsed.data;
  const room = channelRoom(channel, id);
  if (!socket.rooms.has(room)) return { status: 404, body: { detail: MESSAGES.notFound } };
  await socket.leave(room);
  return { status: 200, body: { channel, id } };
}

/**
 * Check every subscription of the socket again for the caller it has now (after a change of rights, or a
 * sign-out); leave the rooms it may no longer watch. Fails closed: a check that errors also leaves.
 */
export async function reauthorizeSubscriptions(socket: AppSocket, ctx: RequestContext): Promise<void> {
  await Promise.all(
    subscriptionsOf(socket).map(async ({ channel, id }) => {
      const definition = findChannel(channel);
      try {
        if (!definition) throw new Error(`channel ${channel} is no longer defined`);
        await definition.authorize(id, ctx);
      } catch (err) {
        if (!(err instanceof AppError)) platform.log.error({ err, channel }, 'could not check a subscription again; leaving it');
        await socket.leave(channelRoom(channel, id));
      }
    }),
  );
}
