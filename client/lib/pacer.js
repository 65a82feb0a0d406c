import { sleep } from './sleep.js';
/**
 * Keeps a socket under the service's per-socket event budget (SOCKET_EVENTS_PER_SECOND, 20 by default): a
 * reconnection that re-joins many rooms and catches up sends a burst, and every event over the budget would be
 * answered 429 and sent again.
 */
export class Pacer {
    perSecond;
    sentAt = [];
    constructor(perSecond) {
        this.perSecond = perSecond;
    }
    async turn() {
        for (;;) {
            const now = Date.now();
            while (this.sentAt.length && now - this.sentAt[0] >= 1000)
                this.sentAt.shift();
            if (this.sentAt.length < this.perSecond)
                return void this.sentAt.push(now);
            await sleep(1000 - (now - this.sentAt[0]) + 5);
        }
    }
}
