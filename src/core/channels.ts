import type { RequestContext } from './context.js';

/**
 * Realtime channels a client may subscribe to (`subscribe {channel, id}`), registered by the
 * modules that own them. `authorize` answers whether this caller may watch that object; it throws
 * an AppError (404 for an unknown id, 403 when not allowed). The room name is derived here so that
 * clients never name a room themselves.
 */
export interface ChannelDefinition {
  name: string;
  authorize: (id: string, ctx: RequestContext) => Promise<void>;
}

const channels = new Map<string, ChannelDefinition>();

export function defineChannel(def: ChannelDefinition): ChannelDefinition {
  channels.set(def.name, def);
  return def;
}

export const findChannel = (name: string) => channels.get(name);
export const roomName = (channel: string, id: string) => `${channel}:${id}`;
