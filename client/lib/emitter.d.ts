/**
 * A small typed event emitter (no Node `events` in browsers). A handler that throws is reported on the console and
 * does not stop the others: one app bug must not break the client's own bookkeeping.
 */
export type Handler<T> = (payload: T) => void;
export declare class Emitter<Events extends object> {
    private readonly handlers;
    on<K extends keyof Events>(event: K, handler: Handler<Events[K]>): void;
    off<K extends keyof Events>(event: K, handler: Handler<Events[K]>): void;
    emit<K extends keyof Events>(event: K, payload: Events[K]): void;
    clear(): void;
}
