import type { Server } from 'socket.io';
import type { DomainEvent } from '../core/events.js';

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
      // Every device of the user follows it to the new location's room. This node's sockets move at once:
      // with the Redis adapter the cluster-wide move lands only after a round trip, and an event for the
      // new room (e.g. location:updated from the same transaction) is emitted right after this one.
      for (const ops of [io.local, io]) {
        if (fromLocationId) ops.in(`user:${userId}`).socketsLeave(`location:${fromLocationId}`);
        if (toLocationId) ops.in(`user:${userId}`).socketsJoin(`location:${toLocationId}`);
      }
      return;
    }
    case 'location.updated':
      io.to(`location:${event.payload.location.id}`).emit('location:updated', event.payload.location);
      return;
    case 'user.deactivated':
      io.in(`user:${event.payload.userId}`).disconnectSockets(true);
      return;
  }
}
