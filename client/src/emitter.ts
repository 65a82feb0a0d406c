/**
 * A small typed event emitter (no Node `events` in browsers). A handler that throws is reported on the console and
 * does not stop the others: one app bug must not break the client's own bookkeeping.
 */
export type Handler<T> = (payload: T) => void;

export class Emitter<Events extends object> {
  private readonly handlers = new Map<keyof Events, Set<Handler<never>>>();

  on<K extends keyof Events>(event: K, handler: Handler<Events[K]>): void {
    let set = this.handlers.get(event);
    if (!set) this.handlers.set(event, (set = new Set()));
    set.add(handler as Handler<never>);
  }

  off<K extends keyof Events>(event: K, handler: Handler<Events[K]>): void {
    this.handlers.get(event)?.delete(handler as Handler<never>);
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const handler of [...(this.handlers.get(event) ?? [])]) {
      try {
        (handler as Handler<Events[K]>)(payload);
      } catch (err) {
        console.error(`@hyperlocal/client: a handler of ${String(event)} threw`, err);
      }
    }
  }

  clear(): void {
    this.handlers.clear();
  }
}
