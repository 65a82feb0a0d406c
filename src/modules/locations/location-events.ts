import type { PendingEvents } from '../../core/events.js';
import type { LocationRow } from '../../models/index.js';
import { serializeLocation, type LocationBody } from './locations.serializer.js';

declare module '../../core/events.js' {
  interface DomainEventMap {
    /** The name, boundary or confidence of a location changed; its room hears `location:updated`. */
    'location.updated': { location: LocationBody };
  }
}

export function locationUpdated(events: PendingEvents, row: LocationRow): void {
  events.add('location.updated', { location: serializeLocation(row) });
}
