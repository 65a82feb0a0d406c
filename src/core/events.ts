import { EventEmitter } from 'node:events';

/**
 * The typed domain-event bus. Services publish what happened (after their transaction commits);
 * src/realtime alone decides which Socket.IO rooms hear of it. Modules add their events to
 * `DomainEventMap` by declaration merging:
 *
 *   declare module '../../core/events.js' {
 *     interface DomainEventMap { 'post.created': { post: PostBody; locationId: string | null } }
 *   }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface DomainEventMap {}

export type DomainEventName = keyof DomainEventMap & string;
export type DomainEvent = { [K in DomainEventName]: { name: K; payload: DomainEventMap[K] } }[DomainEventName];

type Listener = (event: DomainEvent) => void;

class DomainEventBus {
  private readonly emitter = new EventEmitter().setMaxListeners(100);

  publish<K extends DomainEventName>(name: K, payload: DomainEventMap[K]): void {
    this.emitter.emit('event', { name, payload } as DomainEvent);
  }

  publishAll(events: readonly DomainEvent[]): void {
    for (const event of events) this.emitter.emit('event', event);
  }

  subscribe(listener: Listener): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}

export const domainEvents = new DomainEventBus();

/**
 * Events raised inside a transaction wait here and are published only after it commits,
 * so no client hears of a write that was rolled back.
 */
export class PendingEvents {
  private readonly events: DomainEvent[] = [];

  add<K extends DomainEventName>(name: K, payload: DomainEventMap[K]): void {
    this.events.push({ name, payload } as DomainEvent);
  }

  /** Take over the events of a nested unit of work that succeeded (a savepoint): they publish with ours. */
  adopt(other: PendingEvents): void {
    this.events.push(...other.events.splice(0));
  }

  flush(): void {
    domainEvents.publishAll(this.events.splice(0));
  }
}
