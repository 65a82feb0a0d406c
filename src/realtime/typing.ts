import { z } from 'zod';
import { MESSAGES } from '../core/errors.js';
import { zodToFieldErrors, zUuid } from '../core/validation.js';
import { participantIds } from '../modules/messages/messages.queries.js';
import { unblockedAmong } from '../modules/policy/visibility.js';
import { checkedCaller } from './caller.js';
import type { Clock } from './clock.js';
import { userRoom } from './rooms.js';
import type { AppSocket } from './socket-types.js';

/**
 * `typing {conversation_id}` from a participant's socket reaches the other participants' sockets as
 * `typing {conversation_id, user_id}` (DESIGN.md section 5). Ephemeral: no operation, nothing stored, no
 * REST twin. Participation is cached briefly per conversation (participants never change after a
 * conversation opens), and each socket relays at most one `typing` per conversation per TYPING_THROTTLE_MS,
 * so a client that emits on every keystroke costs neither the database nor the other side anything. A relay
 * reaches only the participants in no block with the typist.
 * Acks `{status: 200, body: {conversation_id, relayed}}`; 401 anonymous, 400 bad id, 404 not a participant.
 */
export const TYPING_THROTTLE_MS = 2000;
export const PARTICIPANTS_CACHE_MS = 10_000;
const PARTICIPANTS_CACHE_MAX = 10_000;

type Result = { status: number; body: unknown };
const input = z.object({ conversation_id: zUuid() });

export function createTypingHandler(clock: Clock) {
  const participants = new Map<string, { ids: string[]; at: number }>();
  const lastRelayed = new WeakMap<AppSocket, Map<string, number>>();

  async function participantsOf(conversationId: string): Promise<string[]> {
    const cached = participants.get(conversationId);
    if (cached && clock.now() - cached.at < PARTICIPANTS_CACHE_MS) return cached.ids;
    const ids = await participantIds(conversationId);
    // Oldest entry out first (Map keeps insertion order), so the cache stays bounded.
    if (participants.size >= PARTICIPANTS_CACHE_MAX) participants.delete(participants.keys().next().value!);
    participants.delete(conversationId);
    participants.set(conversationId, { ids, at: clock.now() });
    return ids;
  }

  return async function handleTyping(socket: AppSocket, raw: Record<string, unknown>): Promise<Result> {
    const user = await checkedCaller(socket, clock);
    if (!user) return { status: 401, body: { detail: socket.data.session ? MESSAGES.invalidToken : MESSAGES.notAuthenticated } };
    const parsed = input.safeParse(raw);
    if (!parsed.success) return { status: 400, body: zodToFieldErrors(parsed.error) };
    const conversationId = parsed.data.conversation_id;
    const ids = await participantsOf(conversationId);
    if (!ids.includes(user.id)) return { status: 404, body: { detail: MESSAGES.notFound } };

    let mine = lastRelayed.get(socket);
    if (!mine) lastRelayed.set(socket, (mine = new Map()));
    const last = mine.get(conversationId);
    if (last !== undefined && clock.now() - last < TYPING_THROTTLE_MS) return { status: 200, body: { conversation_id: conversationId, relayed: false } };
    mine.set(conversationId, clock.now());

    // Read on every relay, not cached with the participants: a block made a second ago already holds (DESIGN.md
    // section 9, "Every path": typing never reaches across a block, in an old conversation or a group).
    const others = (await unblockedAmong(user.id, ids.filter((id) => id !== user.id))).map(userRoom);
    if (others.length) socket.nsp.to(others).emit('typing', { conversation_id: conversationId, user_id: user.id });
    return { status: 200, body: { conversation_id: conversationId, relayed: true } };
  };
}
