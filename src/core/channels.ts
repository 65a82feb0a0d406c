import type { RequestContext } from './context.js';
import type { PendingEvents } from './events.js';

/**
 * Realtime channels a client may subscribe to (`subscribe {channel, id}`), registered by the
 * modules that own them. `authorize` answers whether this caller may watch that object; it throws
 * an AppError (404 for an unknown id, 401 when the caller must sign in, 403 when not allowed). The room name is derived here so that
 * clients never name a room themselves.
 *
 * Rights are checked when a socket subscribes. When a right ends later (a member leaves a private
 * community), the module that ended it raises `channel.access_ended` and every socket of that user, on
 * every node, leaves the room. A user whose rights or session changed (`user.access_changed`) has its
 * sockets' subscriptions checked again.
 */
export interface ChannelDefinition {
  name: string;
  authorize: (id: string, ctx: RequestContext) => Promise<void>;
}

declare module './events.js' {
  interface DomainEventMap {
    /** `userId` may no longer watch `channel` `id`: its sockets leave that room on every node. */
    'channel.access_ended': { channel: string; id: string; userId: string };
  }
}

const channels = new Map<string, ChannelDefinition>();

export function defineChannel(def: ChannelDefinition): ChannelDefinition {
  if (def.name.includes(':')) throw new Error(`channel name "${def.name}" may not contain ":"`);
  channels.set(def.name, def);
  return def;
}

export const findChannel = (name: string) => channels.get(name);

/** Channel rooms have their own prefix: a channel named `user` can never alias the server room `user:<id>`. */
const CHANNEL_ROOM_PREFIX = 'sub:';
export const channelRoom = (channel: string, id: string) => `${CHANNEL_ROOM_PREFIX}${channel}:${id}`;

/** The subscription a room stands for, or null for a server room. */
export function channelOfRoom(room: string): { channel: string; id: string } | null {
  if (!room.startsWith(CHANNEL_ROOM_PREFIX)) return null;
  const rest = room.slice(CHANNEL_ROOM_PREFIX.length);
  const colon = rest.indexOf(':');
  return colon > 0 ? { channel: rest.slice(0, colon), id: rest.slice(colon + 1) } : null;
}

/** Raise in the transaction that ended the right (published after commit). */
export function channelAccessEnded(events: PendingEvents, payload: { channel: string; id: string; userId: string }): void {
  events.add('channel.access_ended', payload);
}
