import type { Server } from 'socket.io';
import type { DomainEvent } from '../core/events.js';

/**
 * Who hears a location's events: the sockets that subscribed to it (`subscribe {channel: 'location'}`) and
 * the sockets of the users who live there. Two rooms, so that a user moving away takes its sockets out of the
 * residents' room without undoing a subscription the client made on purpose (a socket in both hears once).
 */
export const residentsRoom = (locationId: string) => `residents:${locationId}`;
export const locationAudience = (locationId: string) => [`location:${locationId}`, residentsRoom(locationId)];

/**
 * Where each domain event is heard (DESIGN.md section 5). The only place that knows room names
 * besides the subscribe handler; services never touch sockets.
 */
export function routeDomainEvent(io: Server, event: DomainEvent): void {
  switch (event.name) {
    case 'notification.created':
      io.to(`user:${event.payload.userId}`).emit('notification:created', event.payload.notification);
      return;
    case 'notification.updated':
      io.to(`user:${event.payload.userId}`).emit('notification:updated', event.payload.notification);
      return;
    case 'user.location_changed': {
      const { userId, fromLocationId, toLocationId } = event.payload;
      // Every device of the user follows it to the new location's residents' room. This node's sockets move at once:
      // with the Redis adapter the cluster-wide move lands only after a round trip, and an event for the
      // new room (e.g. location:updated from the same transaction) is emitted right after this one.
      for (const ops of [io.local, io]) {
        if (fromLocationId) ops.in(`user:${userId}`).socketsLeave(residentsRoom(fromLocationId));
        if (toLocationId) ops.in(`user:${userId}`).socketsJoin(residentsRoom(toLocationId));
      }
      return;
    }
    case 'location.updated':
      io.to(locationAudience(event.payload.location.id)).emit('location:updated', event.payload.location);
      return;
    case 'user.deactivated':
      io.in(`user:${event.payload.userId}`).disconnectSockets(true);
      return;
  }
}
