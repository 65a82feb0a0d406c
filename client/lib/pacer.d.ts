/**
 * Keeps a socket under the service's per-socket event budget (SOCKET_EVENTS_PER_SECOND, 20 by default): a
 * reconnection that re-joins many rooms and catches up sends a burst, and every event over the budget would be
 * answered 429 and sent again.
 */
export declare class Pacer {
    private readonly perSecond;
    private readonly sentAt;
    constructor(perSecond: number);
    turn(): Promise<void>;
}
