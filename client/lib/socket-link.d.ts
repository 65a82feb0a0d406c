import { type Socket } from './socket-io.js';
/**
 * The socket itself: opening and closing it on purpose, answering the server's refusals of a handshake, sending an
 * event and waiting for its ack, and telling the client what it hears. socket.io retries a connection that the
 * network lost; a refusal by the server (a handshake error) or a disconnect by the server it leaves to us.
 */
export interface Ack {
    status: number;
    body: unknown;
}
export interface SocketLinkOptions {
    baseUrl: string;
    path: string;
    transports?: string[];
    ackTimeoutMs: number;
    eventsPerSecond: number;
    /** The handshake's `auth` (the access token as it is when each attempt starts). */
    handshakeAuth: () => Promise<Record<string, unknown>>;
}
export interface SocketLinkListener {
    connected(): void;
    /** The connection is gone; `retrying`: it will be tried again (by socket.io or by this link). */
    disconnected(reason: string, retrying: boolean): void;
    /** The server refused the handshake; the listener decides when to try again (`retry`). */
    refused(message: string, data: Record<string, unknown>): void;
    /** An event pushed by the server. */
    event(name: string, payload: unknown): void;
}
export declare class SocketLink {
    private readonly options;
    private readonly listener;
    readonly socket: Socket;
    /** When the server was last heard from (local ms): any packet, ping included. */
    lastHeard: number | null;
    private wanted;
    private retryTimer;
    private readonly pacer;
    private readonly pending;
    constructor(options: SocketLinkOptions, listener: SocketLinkListener);
    get connected(): boolean;
    get wantsConnection(): boolean;
    open(): void;
    close(): void;
    /** Connect again after `ms` (a refused handshake), unless closed meanwhile. */
    retryIn(ms: number): void;
    /** Drop the connection and open a new one at once (a new handshake: another token, or none). */
    reconnect(): void;
    /**
     * One event and its ack. Rejects with an ApiError of status 0 when the socket is not connected, is lost before the
     * ack, or no ack comes in time: then the caller cannot know whether the server ran it.
     */
    emit(event: string, input: unknown): Promise<Ack>;
    destroy(): void;
    private clearRetry;
}
