import type { Server } from 'socket.io';
import { channelRoom } from '../core/channels.js';
import type { AppSocket } from './socket-types.js';

/**
 * Server room names. Clients never name a room: they subscribe to a channel (core/channels.ts), whose rooms
 * carry the `sub:` prefix, so no channel name can alias a server room (`user:`, `residents:`).
 */
export const userRoom = (userId: string) => `user:${userId}`;
export const residentsRoom = (locationId: string) => `residents:${locationId}`;
export const RESIDENTS_PREFIX = 'residents:';

/**
 * Who hears a location's events: the sockets that subscribed to it (`subscribe {channel: 'location'}`) and
 * the sockets of the users who live there. Two rooms, so that a user moving away takes its sockets out of the
 * residents' room without undoing a subscription the client made on purpose (a socket in both hears once).
 */
export const locationAudience = (locationId: string) => [channelRoom('location', locationId), residentsRoom(locationId)];

/** This node's sockets in a room, synchronously (a cluster-wide fetchSockets is a round trip). */
export function localSocketsIn(io: Server, room: string): AppSocket[] {
  const ids = io.of('/').adapter.rooms.get(room);
  if (!ids) return [];
  const sockets: AppSocket[] = [];
  for (const id of ids) {
    const socket = io.of('/').sockets.get(id) as AppSocket | undefined;
    if (socket) sockets.push(socket);
  }
  return sockets;
}

/**
 * The sockets that must not hear `authorId`'s posts and comments: those of everyone in a block with them, either
 * way, and of everyone who muted them (src/modules/policy/visibility.ts decides; session.ts and the
 * `safety.hiding_changed` route keep the membership). Pushes authored by them go out `.except()` this room.
 */
export const HIDING_PREFIX = 'hiding:';
export const hidingRoom = (authorId: string) => `${HIDING_PREFIX}${authorId}`;

/** A post's own room (`subscribe {channel: 'post'}`): its comments, poll results and stats. */
export const postRoom = (postId: string) => channelRoom('post', postId);

/**
 * Where a post lives: its location's audience, or its community's room. A post is in one or the other
 * (community posts have no location).
 */
export function postHomeAudience(locationId: string | null, communityId: string | null): string[] {
  if (communityId) return [channelRoom('community', communityId)];
  return locationId ? locationAudience(locationId) : [];
}
