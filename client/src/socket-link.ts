import { io, type Socket } from './socket-io.js';
import { noAnswer } from './errors.js';
import { Pacer } from './pacer.js';
import { jitter } from './sleep.js';

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

/** After the server closed the socket on purpose (a restart, a drain), come back after about this long. */
const SERVER_CLOSE_RETRY_MS = 1000;

export class SocketLink {
  readonly socket: Socket;
  /** When the server was last heard from (local ms): any packet, ping included. */
  lastHeard: number | null = null;
  private wanted = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly pacer: Pacer;
  private readonly pending = new Set<(reason: string) => void>();

  constructor(
    private readonly options: SocketLinkOptions,
    private readonly listener: SocketLinkListener,
  ) {
    this.pacer = new Pacer(options.eventsPerSecond);
    this.socket = io(options.baseUrl, {
      path: options.path,
      autoConnect: false,
      reconnectionDelay: 1000,
      reconnectionDelayMax: 5000,
      ...(options.transports ? { transports: options.transports as never } : {}),
      auth: (cb: (data: object) => void) => {
        options.handshakeAuth().then(cb, () => cb({}));
      },
    });
    const heard = () => (this.lastHeard = Date.now());
    this.socket.io.on('ping', heard);
    this.socket.on('connect', () => {
      heard();
      listener.connected();
    });
    this.socket.on('disconnect', (reason) => {
      for (const fail of [...this.pending]) fail(reason);
      // The server closed it on purpose: socket.io does not come back by itself.
      const serverClosed = reason === 'io server disconnect';
      if (serverClosed && this.wanted) this.retryIn(jitter(SERVER_CLOSE_RETRY_MS, 1));
      listener.disconnected(reason, this.wanted);
    });
    this.socket.on('connect_error', (err: Error & { data?: unknown }) => {
      // Still active: the network failed and socket.io tries again. Otherwise the server refused the handshake.
      if (this.socket.active) return listener.disconnected(err.message, this.wanted);
      const data = err.data && typeof err.data === 'object' ? (err.data as Record<string, unknown>) : {};
      listener.refused(err.message, data);
    });
    this.socket.onAny((name: string, payload: unknown) => {
      heard();
      // socket.io calls this outside any handler of ours: whatever a pushed payload holds, nothing may escape here
      // (in Node an exception thrown from it would end the process).
      try {
        listener.event(name, payload);
      } catch (err) {
        console.error(`@hyperlocal/client: the pushed event ${String(name)} could not be handled`, err);
      }
    });
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  get wantsConnection(): boolean {
    return this.wanted;
  }

  open(): void {
    this.wanted = true;
    this.clearRetry();
    if (!this.socket.connected && !this.socket.active) this.socket.connect();
  }

  close(): void {
    this.wanted = false;
    this.clearRetry();
    this.socket.disconnect();
  }

  /** Connect again after `ms` (a refused handshake), unless closed meanwhile. */
  retryIn(ms: number): void {
    this.clearRetry();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.wanted && !this.socket.connected) this.socket.connect();
    }, ms);
  }

  /** Drop the connection and open a new one at once (a new handshake: another token, or none). */
  reconnect(): void {
    this.socket.disconnect();
    if (this.wanted) this.socket.connect();
  }

  /**
   * One event and its ack. Rejects with an ApiError of status 0 when the socket is not connected, is lost before the
   * ack, or no ack comes in time: then the caller cannot know whether the server ran it.
   */
  async emit(event: string, input: unknown): Promise<Ack> {
    if (!this.socket.connected) throw noAnswer(event, 'The socket is not connected.');
    await this.pacer.turn();
    if (!this.socket.connected) throw noAnswer(event, 'The socket is not connected.');
    let fail!: (reason: string) => void;
    const lost = new Promise<never>((_, reject) => {
      fail = (reason) => reject(noAnswer(event, `The connection was lost before the answer came (${reason}).`));
    });
    this.pending.add(fail);
    try {
      const ack = (await Promise.race([this.socket.timeout(this.options.ackTimeoutMs).emitWithAck(event, input), lost])) as Ack;
      this.lastHeard = Date.now();
      return ack && typeof ack === 'object' ? ack : { status: 500, body: ack ?? null };
    } catch (err) {
      if (err instanceof Error && err.name === 'ApiError') throw err;
      throw noAnswer(event, `No answer within ${this.options.ackTimeoutMs} ms.`);
    } finally {
      this.pending.delete(fail);
    }
  }

  destroy(): void {
    this.close();
    this.socket.offAny();
    this.socket.removeAllListeners();
    this.socket.io.removeAllListeners();
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }
}
