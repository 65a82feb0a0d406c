import { z } from 'zod';
import { findChannel, roomName } from '../core/channels.js';
import type { RequestContext } from '../core/context.js';
import { AppError, INTERNAL_ERROR_BODY, MESSAGES } from '../core/errors.js';
import { zodToFieldErrors, zUuid } from '../core/validation.js';
import { platform } from '../platform/index.js';
import type { AppSocket } from './server.js';

/**
 * `subscribe {channel, id}`: the module that owns the channel decides whether this caller may watch
 * that object; only then does the socket join the room. Acks mirror an operation's `{status, body}`.
 */
const subscriptionInput = z.object({ channel: z.string({ error: 'This field is required.' }), id: zUuid() });

export async function handleSubscribe(socket: AppSocket, rawInput: unknown, ctx: RequestContext) {
  const parsed = subscriptionInput.safeParse(rawInput ?? {});
  if (!parsed.success) return { status: 400, body: zodToFieldErrors(parsed.error) };
  const { channel, id } = parsed.data;
  const definition = findChannel(channel);
  if (!definition) return { status: 400, body: { channel: [`Unknown channel "${channel}".`] } };
  try {
    await definition.authorize(id, ctx);
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, body: err.body };
    platform.log.error({ err, channel }, 'subscribe failed');
    return { status: 500, body: INTERNAL_ERROR_BODY };
  }
  const room = roomName(channel, id);
  await socket.join(room);
  socket.data.subscriptions.set(room, { channel, id });
  return { status: 200, body: { channel, id } };
}

export async function handleUnsubscribe(socket: AppSocket, rawInput: unknown) {
  const parsed = subscriptionInput.safeParse(rawInput ?? {});
  if (!parsed.success) return { status: 400, body: zodToFieldErrors(parsed.error) };
  const { channel, id } = parsed.data;
  const room = roomName(channel, id);
  if (!socket.data.subscriptions.has(room)) return { status: 404, body: { detail: MESSAGES.notFound } };
  await socket.leave(room);
  socket.data.subscriptions.delete(room);
  return { status: 200, body: { channel, id } };
}
