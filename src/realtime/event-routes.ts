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
      // Every device of the user follows it to the new location's room.
      if (fromLocationId) io.in(`user:${userId}`).socketsLeave(`location:${fromLocationId}`);
      if (toLocationId) io.in(`user:${userId}`).socketsJoin(`location:${toLocationId}`);
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
