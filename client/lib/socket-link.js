import { io } from './socket-io.js';
import { noAnswer } from './errors.js';
import { Pacer } from './pacer.js';
import { jitter } from './sleep.js';
/** After the server closed the socket on purpose (a restart, a drain), come back after about this long. */
const SERVER_CLOSE_RETRY_MS = 1000;
export class SocketLink {
    options;
    listener;
    socket;
    /** When the server was last heard from (local ms): any packet, ping included. */
    lastHeard = null;
    wanted = false;
    retryTimer = null;
    pacer;
    pending = new Set();
    constructor(options, listener) {
        this.options = options;
        this.listener = listener;
        this.pacer = new Pacer(options.eventsPerSecond);
        this.socket = io(options.baseUrl, {
            path: options.path,
            autoConnect: false,
            reconnectionDelay: 1000,
            reconnectionDelayMax: 5000,
            ...(options.transports ? { transports: options.transports } : {}),
            auth: (cb) => {
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
            for (const fail of [...this.pending])
                fail(reason);
            // The server closed it on purpose: socket.io does not come back by itself.
            const serverClosed = reason === 'io server disconnect';
            if (serverClosed && this.wanted)
                this.retryIn(jitter(SERVER_CLOSE_RETRY_MS, 1));
            listener.disconnected(reason, this.wanted);
        });
        this.socket.on('connect_error', (err) => {
            // Still active: the network failed and socket.io tries again. Otherwise the server refused the handshake.
            if (this.socket.active)
                return listener.disconnected(err.message, this.wanted);
            const data = err.data && typeof err.data === 'object' ? err.data : {};
            listener.refused(err.message, data);
        });
        this.socket.onAny((name, payload) => {
            heard();
            // socket.io calls this outside any handler of ours: whatever a pushed payload holds, nothing may escape here
            // (in Node an exception thrown from it would end the process).
            try {
                listener.event(name, payload);
            }
            catch (err) {
                console.error(`@hyperlocal/client: the pushed event ${String(name)} could not be handled`, err);
            }
        });
    }
    get connected() {
        return this.socket.connected;
    }
    get wantsConnection() {
        return this.wanted;
    }
    open() {
        this.wanted = true;
        this.clearRetry();
        if (!this.socket.connected && !this.socket.active)
            this.socket.connect();
    }
    close() {
        this.wanted = false;
        this.clearRetry();
        this.socket.disconnect();
    }
    /** Connect again after `ms` (a refused handshake), unless closed meanwhile. */
    retryIn(ms) {
        this.clearRetry();
        this.retryTimer = setTimeout(() => {
            this.retryTimer = null;
            if (this.wanted && !this.socket.connected)
                this.socket.connect();
        }, ms);
    }
    /** Drop the connection and open a new one at once (a new handshake: another token, or none). */
    reconnect() {
        this.socket.disconnect();
        if (this.wanted)
            this.socket.connect();
    }
    /**
     * One event and its ack. Rejects with an ApiError of status 0 when the socket is not connected, is lost before the
     * ack, or no ack comes in time: then the caller cannot know whether the server ran it.
     */
    async emit(event, input) {
        if (!this.socket.connected)
            throw noAnswer(event, 'The socket is not connected.');
        await this.pacer.turn();
        if (!this.socket.connected)
            throw noAnswer(event, 'The socket is not connected.');
        let fail;
        const lost = new Promise((_, reject) => {
            fail = (reason) => reject(noAnswer(event, `The connection was lost before the answer came (${reason}).`));
        });
        this.pending.add(fail);
        try {
            const ack = (await Promise.race([this.socket.timeout(this.options.ackTimeoutMs).emitWithAck(event, input), lost]));
            this.lastHeard = Date.now();
            return ack && typeof ack === 'object' ? ack : { status: 500, body: ack ?? null };
        }
        catch (err) {
            if (err instanceof Error && err.name === 'ApiError')
                throw err;
            throw noAnswer(event, `No answer within ${this.options.ackTimeoutMs} ms.`);
        }
        finally {
            this.pending.delete(fail);
        }
    }
    destroy() {
        this.close();
        this.socket.offAny();
        this.socket.removeAllListeners();
        this.socket.io.removeAllListeners();
    }
    clearRetry() {
        if (this.retryTimer)
            clearTimeout(this.retryTimer);
        this.retryTimer = null;
    }
}
