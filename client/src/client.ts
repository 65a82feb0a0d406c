import { operationRoutes, type OperationRoute, type Sync, type User } from './generated/api.js';
import { ApiError, noAnswer } from './errors.js';
import { Emitter } from './emitter.js';
import { DOT_PATH_PARAMETER, dotPathParameter, hasFile, restCall } from './rest.js';
import { isRetryable, retryAfterSeconds } from './retry-after.js';
import { SeenSet } from './seen.js';
import { ServerClock, payloadTime } from './server-clock.js';
import { Session, type EndReason } from './session.js';
import { SocketLink, type Ack } from './socket-link.js';
import { LiveStream } from './live-stream.js';
import { claimsOf, expiresAtLocal, TokenStore } from './tokens.js';
import { deliveriesOf } from './catch-up.js';
import { jitter } from './sleep.js';
import type { AnswerOf, CallOptions, ClientOptions, EventMap, EventName, HyperlocalClient, InputOf, OperationName, Status, Subscription } from './types.js';

/**
 * Nothing a client was offline for is older than the last thing it heard minus this: what the service stamped just
 * before that moment may have committed (and been pushed) just after. Repeats this brings are dropped (SeenSet).
 */
const REPLAY_MARGIN_MS = 10_000;
/** realtime.sync pages (100 items of each kind each) one catch-up goes through before asking for a full refresh. */
const MAX_SYNC_PAGES = 20;

type Answer = Ack & { retryAfter?: string | null };

export function createClient(options: ClientOptions): HyperlocalClient {
  return new Client(options);
}

class Client implements HyperlocalClient {
  private readonly events = new Emitter<EventMap>();
  private readonly seen = new SeenSet();
  private readonly clock = new ServerClock();
  private readonly tokens: TokenStore;
  private readonly session: Session;
  private readonly link: SocketLink | null;
  private readonly live: LiveStream<EventMap>;
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly fetch: typeof fetch;
  private currentStatus: Status = 'offline';
  private currentUser: User | null = null;
  /** Bumped by every connection and disconnection: a catch-up of an older connection stops. */
  private generation = 0;
  /** The pauses under way (a retry's wait, a catch-up's back-off): close() ends them, timers cleared. */
  private readonly pauses = new Set<() => void>();
  private closed = false;
  private everLive = false;
  /** The server time this session's stream starts at: nothing before it is replayed. */
  private baseline: number | null = null;
  /** Replay is owed from this server time (set when a live connection is lost; cleared once caught up). */
  private owedSince: number | null = null;
  /** The user the current socket connection is signed in as (null: anonymous). */
  private socketUser: string | null = null;
  /** This connection's handshake was refused `unauthorized` after a successful refresh: the next refusal ends it. */
  private refreshedForHandshake = false;
  private refusals = 0;

  constructor(private readonly options: ClientOptions) {
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
        : new SocketLink(
            {
              baseUrl: options.baseUrl,
              path: '/socket.io/',
              transports: options.transports,
              ackTimeoutMs: options.ackTimeoutMs ?? 15_000,
              eventsPerSecond: options.eventsPerSecond ?? 15,
              handshakeAuth: () => this.handshakeAuth(),
            },
            {
              connected: () => this.connected(),
              disconnected: (_reason, retrying) => this.disconnected(retrying),
              refused: (message, data) => void this.refused(message, data),
              event: (name, payload) => this.received(name, payload),
            },
          );
    this.connect();
  }

  get status(): Status {
    return this.currentStatus;
  }

  get user(): User | null {
    return this.currentUser;
  }

  get signedIn(): boolean {
    return this.session.signedIn;
  }

  get ready(): Promise<void> {
    return this.session.ready;
  }

  // ---- the session ------------------------------------------------------------------------------------------------

  async register(input: InputOf<'accounts.register'>): Promise<AnswerOf<'accounts.register'>> {
    const answer = await this.call('accounts.register', input);
    await this.begin(answer);
    return answer;
  }

  async login(credentials: { username: string; password: string }): Promise<AnswerOf<'accounts.login'>> {
    const answer = await this.call('accounts.login', credentials);
    await this.begin(answer);
    return answer;
  }

  async logout(): Promise<void> {
    await this.session.ready;
    const refresh = this.tokens.tokens?.refresh;
    // Over a live socket the service also signs that socket out (it goes on anonymous).
    const signedOut = refresh ? await this.call('accounts.logout', { refresh }).then(() => true, () => false) : false;
    await this.session.end('logout');
    if (!this.link?.connected) return;
    if (signedOut) this.socketUser = null;
    // The call failed: the socket may still be the user's, hearing their private events. A new, anonymous one.
    else this.link.reconnect();
  }

  async renew(): Promise<void> {
    if (!(await this.session.refresh())) throw new ApiError(401, { detail: 'Not signed in.' }, 'accounts.refresh');
  }

  private async begin(answer: { access_token: string; refresh_token: string; user: User }): Promise<void> {
    const newUser = claimsOf(answer.access_token).sub ?? null;
    if (newUser !== this.session.userId) this.forgetStream();
    this.currentUser = answer.user;
    await this.session.begin(answer);
    if (this.currentStatus === 'live') this.baseline ??= this.clock.serverTimeAt(Date.now());
  }

  /** A new user (or none): nothing seen or owed belongs to them. */
  private forgetStream(): void {
    this.seen.clear();
    this.baseline = null;
    this.owedSince = null;
  }

  private sessionEnded(reason: EndReason): void {
    this.currentUser = null;
    this.forgetStream();
    // A socket still signed in as the ended session starts again anonymous.
    if (this.link?.connected && this.socketUser) this.link.reconnect();
    this.events.emit('auth:ended', { reason });
  }

  /** Hand a renewed access token to the live socket; a token of another user needs a new handshake instead. */
  private async renewSocket(access: string): Promise<Ack | null> {
    if (!this.link?.connected) return null;
    const user = claimsOf(access).sub ?? null;
    if (this.socketUser && this.socketUser !== user) {
      this.link.reconnect();
      return null;
    }
    const ack = await this.link.emit('auth:renew', { token: access });
    if (ack.status === 200) this.socketUser = user;
    return ack;
  }

  private async handshakeAuth(): Promise<Record<string, unknown>> {
    const token = await this.session.tokenForUse();
    this.socketUser = token ? (claimsOf(token).sub ?? null) : null;
    return token ? { token } : {};
  }

  // ---- calls ------------------------------------------------------------------------------------------------------

  async call<K extends OperationName>(operation: K, input?: InputOf<K>, options: CallOptions = {}): Promise<AnswerOf<K>> {
    const answer = await this.request(operation, (input ?? {}) as Record<string, unknown>, options);
    if (answer.status >= 400) throw new ApiError(answer.status, answer.body, operation);
    return answer.body as AnswerOf<K>;
  }

  /**
   * One operation, answered: over the socket when it is connected (files always over REST), else REST. A call whose
   * socket is lost before its ack is sent again over REST when that is safe (reads, and what says it is idempotent).
   */
  private request(operation: string, input: Record<string, unknown>, options: CallOptions & { idempotent?: boolean } = {}): Promise<Answer> {
    const route = (operationRoutes as Record<string, OperationRoute>)[operation];
    if (!route) throw new TypeError(`@hyperlocal/client: no operation named ${operation}`);
    // Refused on both transports alike, before anything is sent (REST could not send it to the operation's path).
    const dotted = dotPathParameter(route, input);
    if (dotted) return Promise.reject(new ApiError(400, { [dotted]: [DOT_PATH_PARAMETER] }, operation));
    const upload = hasFile(route, input);
    if (upload && options.transport === 'socket') throw new TypeError('@hyperlocal/client: files go over REST only (the socket carries no files)');
    const viaSocket = options.transport !== 'rest' && !upload;
    const safeAgain = route.method === 'GET' || options.idempotent === true;
    return this.exchange(route.auth !== 'public', async () => {
      if (viaSocket && this.link?.connected) {
        if (route.auth !== 'public') await this.session.tokenForUse();
        try {
          return await this.link.emit(operation, input);
        } catch (err) {
          if (!(err instanceof ApiError) || !safeAgain || options.transport === 'socket') throw err;
        }
      }
      if (options.transport === 'socket') throw noAnswer(operation, 'The socket is not connected.');
      return this.overRest(route, input, operation);
    });
  }

  private async overRest(route: OperationRoute, input: Record<string, unknown>, operation: string): Promise<Answer> {
    const token = route.auth === 'public' ? null : await this.session.tokenForUse();
    try {
      const res = await restCall({ baseUrl: this.options.baseUrl, route, input, token, headers: this.options.headers, fetch: this.fetch });
      if (res.date) this.clock.observe(res.date);
      return { status: res.status, body: res.body, retryAfter: res.retryAfter };
    } catch (err) {
      throw noAnswer(operation, `The request failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * The service's "not now" (429, 503) is waited out as it asks, up to the limits; a refused access token (401) is
   * renewed once and the call made again.
   */
  private async exchange(needsAuth: boolean, attempt: () => Promise<Answer>): Promise<Answer> {
    const maxRetries = this.options.retry?.maxRetries ?? 3;
    const maxWait = this.options.retry?.maxWaitSeconds ?? 60;
    let renewed = false;
    for (let tries = 0; ; tries++) {
      const answer = await attempt();
      if (answer.status === 401 && needsAuth && !renewed && this.session.signedIn) {
        renewed = true;
        this.session.markRefused();
        if (await this.session.refresh().catch(() => false)) continue;
        return answer;
      }
      if (isRetryable(answer.status) && tries < maxRetries) {
        const wait = retryAfterSeconds(answer.body, answer.retryAfter) ?? 2 ** tries;
        if (wait <= maxWait) {
          if (await this.pause(jitter(Math.max(wait, 0.05) * 1000, 0.1))) continue;
        }
      }
      return answer;
    }
  }

  // ---- events and rooms -------------------------------------------------------------------------------------------

  on<K extends EventName>(event: K, handler: (payload: EventMap[K]) => void): void {
    this.events.on(event, handler);
  }

  off<K extends EventName>(event: K, handler: (payload: EventMap[K]) => void): void {
    this.events.off(event, handler);
  }

  async subscribe(subscription: Subscription): Promise<void> {
    const key = `${subscription.channel}:${subscription.id}`;
    this.subscriptions.set(key, { channel: subscription.channel, id: subscription.id });
    // Offline: it is joined with the others when the socket connects.
    if (!this.link?.connected) return;
    let ack: Answer;
    try {
      ack = await this.exchange(true, () => this.link!.emit('subscribe', { channel: subscription.channel, id: subscription.id }));
    } catch {
      return; // the connection went away: joined again on the next one
    }
    if (ack.status === 200) return;
    this.subscriptions.delete(key);
    throw new ApiError(ack.status, ack.body, 'subscribe');
  }

  async unsubscribe(subscription: Subscription): Promise<void> {
    this.subscriptions.delete(`${subscription.channel}:${subscription.id}`);
    if (!this.link?.connected) return;
    await this.link.emit('unsubscribe', { channel: subscription.channel, id: subscription.id }).catch(() => undefined);
  }

  // ---- the connection ---------------------------------------------------------------------------------------------

  connect(): void {
    if (!this.link) return;
    this.link.open();
    if (!this.link.connected) this.setStatus('connecting');
  }

  disconnect(): void {
    this.link?.close();
  }

  close(): void {
    this.closed = true;
    for (const end of [...this.pauses]) end();
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
  private pause(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const end = (done: boolean) => {
        clearTimeout(timer);
        this.pauses.delete(stop);
        resolve(done);
      };
      const stop = () => end(false);
      const timer = setTimeout(() => end(true), ms);
      this.pauses.add(stop);
    });
  }

  private connected(): void {
    this.refreshedForHandshake = false;
    this.refusals = 0;
    void this.catchUp(++this.generation);
  }

  private disconnected(retrying: boolean): void {
    // Owed from the last moment the live socket was heard: anything after it may not have arrived.
    if (this.currentStatus === 'live' && this.session.signedIn) this.owedSince ??= this.clock.serverTimeAt(this.link?.lastHeard ?? Date.now()) - REPLAY_MARGIN_MS;
    this.generation++;
    this.socketUser = null;
    this.setStatus(retrying ? 'connecting' : 'offline');
  }

  /**
   * A handshake the service refused. `unavailable`: it could not check the token (its database is busy): come back
   * when it says, keeping the session. `unauthorized`: renew once and try again; refused again, the session is over
   * and the socket goes on anonymous. Anything else (too many connections, an internal error): back off.
   */
  private async refused(message: string, data: Record<string, unknown>): Promise<void> {
    const link = this.link!;
    this.setStatus('connecting');
    if (message === 'unavailable') return link.retryIn(jitter((retryAfterSeconds(data) ?? 5) * 1000, 0.3));
    if (message === 'unauthorized' && this.session.signedIn) {
      if (this.refreshedForHandshake) {
        await this.session.end('revoked');
        return link.retryIn(0);
      }
      this.session.markRefused();
      try {
        this.refreshedForHandshake = await this.session.refresh();
        return link.retryIn(0);
      } catch {
        return link.retryIn(jitter(5000, 0.5));
      }
    }
    this.refusals++;
    link.retryIn(jitter(Math.min(60_000, 1000 * 2 ** this.refusals), 0.5));
  }

  private received(name: string, payload: unknown): void {
    this.clock.observe(payloadTime(payload));
    const id = (payload as { id?: unknown } | null)?.id;
    if (name === 'auth:expired') this.session.markRefused();
    // The room is gone with its object: nothing to join again.
    if (typeof id === 'string' && name === 'community:deleted') this.subscriptions.delete(`community:${id}`);
    if (typeof id === 'string' && name === 'post:deleted') this.subscriptions.delete(`post:${id}`);
    this.live.receive(name, payload);
  }

  /**
   * After every connection, before `live`: join the kept rooms again, replay what was missed (signed in, after a
   * loss), let the app read what it needs, then deliver what was pushed meanwhile. A failure is tried again; a new
   * connection or a loss (the generation moves) abandons it, and the next connection starts over.
   */
  private async catchUp(generation: number): Promise<void> {
    this.setStatus('catching-up');
    this.live.hold();
    const reconnect = this.everLive;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.matchSession();
        await this.rejoin(generation);
        if (this.owedSince !== null && this.session.signedIn) await this.replay(generation);
        if (generation !== this.generation) return;
        await this.options.onCatchUp?.({ reconnect });
        break;
      } catch (err) {
        if (generation !== this.generation) return;
        this.events.emit('error', err as Error);
        await this.pause(jitter(Math.min(30_000, 1000 * 2 ** attempt), 0.3));
        if (generation !== this.generation) return;
      }
    }
    if (generation !== this.generation || !this.link?.connected) return;
    this.owedSince = null;
    if (this.session.signedIn) this.baseline ??= this.clock.serverTimeAt(Date.now());
    this.live.release();
    this.everLive = true;
    this.setStatus('live');
  }

  /**
   * The session changed while this connection's handshake was under way (a login, a logout): the socket takes the
   * session it should have before anything else is asked of it.
   */
  private async matchSession(): Promise<void> {
    const user = this.session.userId;
    if (user === this.socketUser) return;
    if (!user) return this.link!.reconnect();
    const ack = await this.renewSocket(this.session.accessToken!);
    if (ack && ack.status === 401) {
      this.session.markRefused();
      await this.session.refresh();
    }
  }

  private async rejoin(generation: number): Promise<void> {
    for (const [key, sub] of [...this.subscriptions]) {
      if (generation !== this.generation) return;
      const ack = await this.exchange(true, () => this.link!.emit('subscribe', sub));
      if (ack.status === 200 || !this.subscriptions.has(key)) continue;
      if (ack.status >= 500 || ack.status === 429) throw new ApiError(ack.status, ack.body, 'subscribe');
      this.subscriptions.delete(key);
      this.events.emit('subscription:ended', { ...sub, status: ack.status, body: ack.body });
    }
  }

  /** realtime.sync from where the stream was lost, every page, then the items as the events that would have carried them. */
  private async replay(generation: number): Promise<void> {
    const since = new Date(Math.max(this.owedSince!, this.baseline ?? Number.NEGATIVE_INFINITY)).toISOString();
    const rooms = {
      locations: [...this.subscriptions.values()].filter((s) => s.channel === 'location').map((s) => s.id),
      communities: [...this.subscriptions.values()].filter((s) => s.channel === 'community').map((s) => s.id),
    };
    const pages: Sync[] = [];
    let input: Record<string, unknown> = { since, ...rooms };
    for (let page = 0; page < MAX_SYNC_PAGES; page++) {
      const answer = await this.request('realtime.sync', input);
      if (generation !== this.generation) return;
      if (answer.status !== 200) throw new ApiError(answer.status, answer.body, 'realtime.sync');
      pages.push(answer.body as Sync);
      if (!(answer.body as Sync).has_more) break;
      input = { cursor: (answer.body as Sync).cursor, ...rooms };
    }
    const last = pages[pages.length - 1];
    if (pages.some((p) => p.full_refresh)) this.events.emit('full_refresh', { reason: 'retention' });
    else if (last?.has_more) this.events.emit('full_refresh', { reason: 'too_much' });
    for (const { event, payload, keys } of deliveriesOf(pages, this.seen)) this.live.deliver(event, payload, keys);
  }

  private setStatus(status: Status): void {
    if (status === this.currentStatus) return;
    this.currentStatus = status;
    this.events.emit('status', status);
  }
}
