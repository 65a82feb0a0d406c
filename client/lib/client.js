import { operationRoutes } from './generated/api.js';
import { ApiError, noAnswer } from './errors.js';
import { Emitter } from './emitter.js';
import { DOT_PATH_PARAMETER, dotPathParameter, hasFile, restCall } from './rest.js';
import { isRetryable, retryAfterSeconds } from './retry-after.js';
import { SeenSet } from './seen.js';
import { ServerClock, payloadTime } from './server-clock.js';
import { Session } from './session.js';
import { SocketLink } from './socket-link.js';
import { LiveStream } from './live-stream.js';
import { claimsOf, expiresAtLocal, TokenStore } from './tokens.js';
import { deliveriesOf } from './catch-up.js';
import { jitter } from './sleep.js';
/**
 * Nothing a client was offline for is older than the last thing it heard minus this: what the service stamped just
 * before that moment may have committed (and been pushed) just after. Repeats this brings are dropped (SeenSet).
 */
const REPLAY_MARGIN_MS = 10_000;
/** realtime.sync pages (100 items of each kind each) one catch-up goes through before asking for a full refresh. */
const MAX_SYNC_PAGES = 20;
export function createClient(options) {
    return new Client(options);
}
class Client {
    options;
    events = new Emitter();
    seen = new SeenSet();
    clock = new ServerClock();
    tokens;
    session;
    link;
    live;
    subscriptions = new Map();
    fetch;
    currentStatus = 'offline';
    currentUser = null;
    /** Bumped by every connection and disconnection: a catch-up of an older connection stops. */
    generation = 0;
    /** The pauses under way (a retry's wait, a catch-up's back-off): close() ends them, timers cleared. */
    pauses = new Set();
    closed = false;
    everLive = false;
    /** The server time this session's stream starts at: nothing before it is replayed. */
    baseline = null;
    /** Replay is owed from this server time (set when a live connection is lost; cleared once caught up). */
    owedSince = null;
    /** The user the current socket connection is signed in as (null: anonymous). */
    socketUser = null;
    /** This connection's handshake was refused `unauthorized` after a successful refresh: the next refusal ends it. */
    refreshedForHandshake = false;
    refusals = 0;
    constructor(options) {
        this.options = options;
        this.fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
        this.tokens = new TokenStore(options.storage, options.storageKey ?? 'hyperlocal.session');
        this.session = new Session({
            tokens: this.tokens,
            clock: this.clock,
            lockName: `hyperlocal-refresh:${options.storageKey ?? 'hyperlocal.session'}`,
            refreshCall: (refresh) => this.request('accounts.refresh', { refresh }, { idempotent: true }),
            renewSocket: (access) => this.renewSocket(access),
            renewed: (tokens) => this.events.emit('auth:renewed', { expires_at: Number.isFinite(expiresAtLocal(tokens)) ? new Date(expiresAtLocal(tokens)).toISOString() : null }),
            ended: (reason) => this.sessionEnded(reason),
        });
        this.live = new LiveStream(this.events, this.seen, options.maxHeldEvents);
        this.link =
            options.realtime === false
                ? null
                : new SocketLink({
                    baseUrl: options.baseUrl,
                    path: '/socket.io/',
                    transports: options.transports,
                    ackTimeoutMs: options.ackTimeoutMs ?? 15_000,
                    eventsPerSecond: options.eventsPerSecond ?? 15,
                    handshakeAuth: () => this.handshakeAuth(),
                }, {
                    connected: () => this.connected(),
                    disconnected: (_reason, retrying) => this.disconnected(retrying),
                    refused: (message, data) => void this.refused(message, data),
                    event: (name, payload) => this.received(name, payload),
                });
        this.connect();
    }
    get status() {
        return this.currentStatus;
    }
    get user() {
        return this.currentUser;
    }
    get signedIn() {
        return this.session.signedIn;
    }
    get ready() {
        return this.session.ready;
    }
    // ---- the session ------------------------------------------------------------------------------------------------
    async register(input) {
        const answer = await this.call('accounts.register', input);
        await this.begin(answer);
        return answer;
    }
    async login(credentials) {
        const answer = await this.call('accounts.login', credentials);
        await this.begin(answer);
        return answer;
    }
    async logout() {
        await this.session.ready;
        const refresh = this.tokens.tokens?.refresh;
        // Over a live socket the service also signs that socket out (it goes on anonymous).
        const signedOut = refresh ? await this.call('accounts.logout', { refresh }).then(() => true, () => false) : false;
        await this.session.end('logout');
        if (!this.link?.connected)
            return;
        if (signedOut)
            this.socketUser = null;
        // The call failed: the socket may still be the user's, hearing their private events. A new, anonymous one.
        else
            this.link.reconnect();
    }
    async renew() {
        if (!(await this.session.refresh()))
            throw new ApiError(401, { detail: 'Not signed in.' }, 'accounts.refresh');
    }
    async begin(answer) {
        const newUser = claimsOf(answer.access_token).sub ?? null;
        if (newUser !== this.session.userId)
            this.forgetStream();
        this.currentUser = answer.user;
        await this.session.begin(answer);
        if (this.currentStatus === 'live')
            this.baseline ??= this.clock.serverTimeAt(Date.now());
    }
    /** A new user (or none): nothing seen or owed belongs to them. */
    forgetStream() {
        this.seen.clear();
        this.baseline = null;
        this.owedSince = null;
    }
    sessionEnded(reason) {
        this.currentUser = null;
        this.forgetStream();
        // A socket still signed in as the ended session starts again anonymous.
        if (this.link?.connected && this.socketUser)
            this.link.reconnect();
        this.events.emit('auth:ended', { reason });
    }
    /** Hand a renewed access token to the live socket; a token of another user needs a new handshake instead. */
    async renewSocket(access) {
        if (!this.link?.connected)
            return null;
        const user = claimsOf(access).sub ?? null;
        if (this.socketUser && this.socketUser !== user) {
            this.link.reconnect();
            return null;
        }
        const ack = await this.link.emit('auth:renew', { token: access });
        if (ack.status === 200)
            this.socketUser = user;
        return ack;
    }
    async handshakeAuth() {
        const token = await this.session.tokenForUse();
        this.socketUser = token ? (claimsOf(token).sub ?? null) : null;
        return token ? { token } : {};
    }
    // ---- calls ------------------------------------------------------------------------------------------------------
    async call(operation, input, options = {}) {
        const answer = await this.request(operation, (input ?? {}), options);
        if (answer.status >= 400)
            throw new ApiError(answer.status, answer.body, operation);
        return answer.body;
    }
    /**
     * One operation, answered: over the socket when it is connected (files always over REST), else REST. A call whose
     * socket is lost before its ack is sent again over REST when that is safe (reads, and what says it is idempotent).
     */
    request(operation, input, options = {}) {
        const route = operationRoutes[operation];
        if (!route)
            throw new TypeError(`@hyperlocal/client: no operation named ${operation}`);
        // Refused on both transports alike, before anything is sent (REST could not send it to the operation's path).
        const dotted = dotPathParameter(route, input);
        if (dotted)
            return Promise.reject(new ApiError(400, { [dotted]: [DOT_PATH_PARAMETER] }, operation));
        const upload = hasFile(route, input);
        if (upload && options.transport === 'socket')
            throw new TypeError('@hyperlocal/client: files go over REST only (the socket carries no files)');
        const viaSocket = options.transport !== 'rest' && !upload;
        const safeAgain = route.method === 'GET' || options.idempotent === true;
        return this.exchange(route.auth !== 'public', async () => {
            if (viaSocket && this.link?.connected) {
                if (route.auth !== 'public')
                    await this.session.tokenForUse();
                try {
                    return await this.link.emit(operation, input);
                }
                catch (err) {
                    if (!(err instanceof ApiError) || !safeAgain || options.transport === 'socket')
                        throw err;
                }
            }
            if (options.transport === 'socket')
                throw noAnswer(operation, 'The socket is not connected.');
            return this.overRest(route, input, operation);
        });
    }
    async overRest(route, input, operation) {
        const token = route.auth === 'public' ? null : await this.session.tokenForUse();
        try {
            const res = await restCall({ baseUrl: this.options.baseUrl, route, input, token, headers: this.options.headers, fetch: this.fetch });
            if (res.date)
                this.clock.observe(res.date);
            return { status: res.status, body: res.body, retryAfter: res.retryAfter };
        }
        catch (err) {
            throw noAnswer(operation, `The request failed: ${err instanceof Error ? err.message : String(err)}`);
        }
    }
    /**
     * The service's "not now" (429, 503) is waited out as it asks, up to the limits; a refused access token (401) is
     * renewed once and the call made again.
     */
    async exchange(needsAuth, attempt) {
        const maxRetries = this.options.retry?.maxRetries ?? 3;
        const maxWait = this.options.retry?.maxWaitSeconds ?? 60;
        let renewed = false;
        for (let tries = 0;; tries++) {
            const answer = await attempt();
            if (answer.status === 401 && needsAuth && !renewed && this.session.signedIn) {
                renewed = true;
                this.session.markRefused();
                if (await this.session.refresh().catch(() => false))
                    continue;
                return answer;
            }
            if (isRetryable(answer.status) && tries < maxRetries) {
                const wait = retryAfterSeconds(answer.body, answer.retryAfter) ?? 2 ** tries;
                if (wait <= maxWait) {
                    if (await this.pause(jitter(Math.max(wait, 0.05) * 1000, 0.1)))
                        continue;
                }
            }
            return answer;
        }
    }
    // ---- events and rooms -------------------------------------------------------------------------------------------
    on(event, handler) {
        this.events.on(event, handler);
    }
    off(event, handler) {
        this.events.off(event, handler);
    }
    async subscribe(subscription) {
        const key = `${subscription.channel}:${subscription.id}`;
        this.subscriptions.set(key, { channel: subscription.channel, id: subscription.id });
        // Offline: it is joined with the others when the socket connects.
        if (!this.link?.connected)
            return;
        let ack;
        try {
            ack = await this.exchange(true, () => this.link.emit('subscribe', { channel: subscription.channel, id: subscription.id }));
        }
        catch {
            return; // the connection went away: joined again on the next one
        }
        if (ack.status === 200)
            return;
        this.subscriptions.delete(key);
        throw new ApiError(ack.status, ack.body, 'subscribe');
    }
    async unsubscribe(subscription) {
        this.subscriptions.delete(`${subscription.channel}:${subscription.id}`);
        if (!this.link?.connected)
            return;
        await this.link.emit('unsubscribe', { channel: subscription.channel, id: subscription.id }).catch(() => undefined);
    }
    // ---- the connection ---------------------------------------------------------------------------------------------
    connect() {
        if (!this.link)
            return;
        this.link.open();
        if (!this.link.connected)
            this.setStatus('connecting');
    }
    disconnect() {
        this.link?.close();
    }
    close() {
        this.closed = true;
        for (const end of [...this.pauses])
            end();
        this.session.stop();
        this.link?.destroy();
        this.generation++;
        this.setStatus('offline');
        this.events.clear();
    }
    /**
     * Wait `ms`; false when the client was closed first (at once, its timer cleared: a closed client neither sends the
     * retried request nor keeps a Node process alive).
     */
    pause(ms) {
        if (this.closed)
            return Promise.resolve(false);
        return new Promise((resolve) => {
            const end = (done) => {
                clearTimeout(timer);
                this.pauses.delete(stop);
                resolve(done);
            };
            const stop = () => end(false);
            const timer = setTimeout(() => end(true), ms);
            this.pauses.add(stop);
        });
    }
    connected() {
        this.refreshedForHandshake = false;
        this.refusals = 0;
        void this.catchUp(++this.generation);
    }
    disconnected(retrying) {
        // Owed from the last moment the live socket was heard: anything after it may not have arrived.
        if (this.currentStatus === 'live' && this.session.signedIn)
            this.owedSince ??= this.clock.serverTimeAt(this.link?.lastHeard ?? Date.now()) - REPLAY_MARGIN_MS;
        this.generation++;
        this.socketUser = null;
        this.setStatus(retrying ? 'connecting' : 'offline');
    }
    /**
     * A handshake the service refused. `unavailable`: it could not check the token (its database is busy): come back
     * when it says, keeping the session. `unauthorized`: renew once and try again; refused again, the session is over
     * and the socket goes on anonymous. Anything else (too many connections, an internal error): back off.
     */
    async refused(message, data) {
        const link = this.link;
        this.setStatus('connecting');
        if (message === 'unavailable')
            return link.retryIn(jitter((retryAfterSeconds(data) ?? 5) * 1000, 0.3));
        if (message === 'unauthorized' && this.session.signedIn) {
            if (this.refreshedForHandshake) {
                await this.session.end('revoked');
                return link.retryIn(0);
            }
            this.session.markRefused();
            try {
                this.refreshedForHandshake = await this.session.refresh();
                return link.retryIn(0);
            }
            catch {
                return link.retryIn(jitter(5000, 0.5));
            }
        }
        this.refusals++;
        link.retryIn(jitter(Math.min(60_000, 1000 * 2 ** this.refusals), 0.5));
    }
    received(name, payload) {
        this.clock.observe(payloadTime(payload));
        const id = payload?.id;
        if (name === 'auth:expired')
            this.session.markRefused();
        // The room is gone with its object: nothing to join again.
        if (typeof id === 'string' && name === 'community:deleted')
            this.subscriptions.delete(`community:${id}`);
        if (typeof id === 'string' && name === 'post:deleted')
            this.subscriptions.delete(`post:${id}`);
        this.live.receive(name, payload);
    }
    /**
     * After every connection, before `live`: join the kept rooms again, replay what was missed (signed in, after a
     * loss), let the app read what it needs, then deliver what was pushed meanwhile. A failure is tried again; a new
     * connection or a loss (the generation moves) abandons it, and the next connection starts over.
     */
    async catchUp(generation) {
        this.setStatus('catching-up');
        this.live.hold();
        const reconnect = this.everLive;
        for (let attempt = 0;; attempt++) {
            try {
                await this.matchSession();
                await this.rejoin(generation);
                if (this.owedSince !== null && this.session.signedIn)
                    await this.replay(generation);
                if (generation !== this.generation)
                    return;
                await this.options.onCatchUp?.({ reconnect });
                break;
            }
            catch (err) {
                if (generation !== this.generation)
                    return;
                this.events.emit('error', err);
                await this.pause(jitter(Math.min(30_000, 1000 * 2 ** attempt), 0.3));
                if (generation !== this.generation)
                    return;
            }
        }
        if (generation !== this.generation || !this.link?.connected)
            return;
        this.owedSince = null;
        if (this.session.signedIn)
            this.baseline ??= this.clock.serverTimeAt(Date.now());
        this.live.release();
        this.everLive = true;
        this.setStatus('live');
    }
    /**
     * The session changed while this connection's handshake was under way (a login, a logout): the socket takes the
     * session it should have before anything else is asked of it.
     */
    async matchSession() {
        const user = this.session.userId;
        if (user === this.socketUser)
            return;
        if (!user)
            return this.link.reconnect();
        const ack = await this.renewSocket(this.session.accessToken);
        if (ack && ack.status === 401) {
            this.session.markRefused();
            await this.session.refresh();
        }
    }
    async rejoin(generation) {
        for (const [key, sub] of [...this.subscriptions]) {
            if (generation !== this.generation)
                return;
            const ack = await this.exchange(true, () => this.link.emit('subscribe', sub));
            if (ack.status === 200 || !this.subscriptions.has(key))
                continue;
            if (ack.status >= 500 || ack.status === 429)
                throw new ApiError(ack.status, ack.body, 'subscribe');
            this.subscriptions.delete(key);
            this.events.emit('subscription:ended', { ...sub, status: ack.status, body: ack.body });
        }
    }
    /** realtime.sync from where the stream was lost, every page, then the items as the events that would have carried them. */
    async replay(generation) {
        const since = new Date(Math.max(this.owedSince, this.baseline ?? Number.NEGATIVE_INFINITY)).toISOString();
        const rooms = {
            locations: [...this.subscriptions.values()].filter((s) => s.channel === 'location').map((s) => s.id),
            communities: [...this.subscriptions.values()].filter((s) => s.channel === 'community').map((s) => s.id),
        };
        const pages = [];
        let input = { since, ...rooms };
        for (let page = 0; page < MAX_SYNC_PAGES; page++) {
            const answer = await this.request('realtime.sync', input);
            if (generation !== this.generation)
                return;
            if (answer.status !== 200)
                throw new ApiError(answer.status, answer.body, 'realtime.sync');
            pages.push(answer.body);
            if (!answer.body.has_more)
                break;
            input = { cursor: answer.body.cursor, ...rooms };
        }
        const last = pages[pages.length - 1];
        if (pages.some((p) => p.full_refresh))
            this.events.emit('full_refresh', { reason: 'retention' });
        else if (last?.has_more)
            this.events.emit('full_refresh', { reason: 'too_much' });
        for (const { event, payload, keys } of deliveriesOf(pages, this.seen))
            this.live.deliver(event, payload, keys);
    }
    setStatus(status) {
        if (status === this.currentStatus)
            return;
        this.currentStatus = status;
        this.events.emit('status', status);
    }
}
