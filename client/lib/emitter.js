export class Emitter {
    handlers = new Map();
    on(event, handler) {
        let set = this.handlers.get(event);
        if (!set)
            this.handlers.set(event, (set = new Set()));
        set.add(handler);
    }
    off(event, handler) {
        this.handlers.get(event)?.delete(handler);
    }
    emit(event, payload) {
        for (const handler of [...(this.handlers.get(event) ?? [])]) {
            try {
                handler(payload);
            }
            catch (err) {
                console.error(`@hyperlocal/client: a handler of ${String(event)} threw`, err);
            }
        }
    }
    clear() {
        this.handlers.clear();
    }
}
