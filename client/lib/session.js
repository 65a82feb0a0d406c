import { ApiError } from './errors.js';
import { expiresAtLocal, lifetimeMs, TokenStore } from './tokens.js';
import { claimsOf } from './tokens.js';
import { retryAfterSeconds } from './retry-after.js';
/**
 * Renew when a fifth of the lifetime is left, at most a minute before expiry, plus up to as much again at random: clients
 * that share a session (tabs) then seldom renew at the same moment.
 */
const RENEW_SHARE = 0.2;
const RENEW_AT_MOST_MS = 60_000;
/** A call waits for a renewal rather than send a token with less than this left. */
const CALL_MARGIN_MS = 1000;
/** When a refresh failed for a passing reason (network, 503): try again after this long at the latest. */
const RETRY_MS = 5000;
export class Session {
    deps;
    ready;
    timer = null;
    inFlight = null;
    /** The service refused our access token (auth:expired, a 401): renew before using it again. */
    refused = false;
    closed = false;
    constructor(deps) {
        this.deps = deps;
        this.ready = deps.tokens.read().then((stored) => {
            if (!stored || this.deps.tokens.tokens)
                return;
            deps.tokens.adopt(stored);
            this.schedule();
        });
    }
    get signedIn() {
        return this.deps.tokens.tokens !== null;
    }
    get accessToken() {
        return this.deps.tokens.tokens?.access ?? null;
    }
    /** The user id of the session (the token's `sub`). */
    get userId() {
        const access = this.accessToken;
        return access ? (claimsOf(access).sub ?? null) : null;
    }
    /** A new session from login or register. */
    async begin(answer) {
        this.refused = false;
        await this.store(answer);
    }
    /** The access token to send now, renewed first when it is about to run out or was refused. */
    async tokenForUse() {
        await this.ready;
        const tokens = this.deps.tokens.tokens;
        if (!tokens)
            return null;
        if (this.refused || expiresAtLocal(tokens) - Date.now() < CALL_MARGIN_MS) {
            try {
                await this.refresh();
            }
            catch {
                // A passing failure: the token we have is still the best there is (the call may well be refused).
            }
        }
        return this.accessToken;
    }
    /** The service said our access token is no longer good (auth:expired, an unauthorized handshake). */
    markRefused() {
        this.refused = true;
    }
    /**
     * Renew now. true: a good session (renewed, or one another client renewed); false: there is none (never signed
     * in, or it ended, and `auth:ended` was told). Throws an ApiError for a passing failure (network, 429, 503),
     * after which the session stays and is tried again.
     */
    refresh() {
        this.inFlight ??= this.withLock(() => this.refreshOnce()).finally(() => (this.inFlight = null));
        return this.inFlight;
    }
    async end(reason) {
        if (!this.signedIn)
            return;
        this.clearTimer();
        await this.deps.tokens.clear();
        this.deps.ended(reason);
    }
    stop() {
        this.closed = true;
        this.clearTimer();
    }
    async refreshOnce() {
        await this.ready;
        if (await this.adoptNewerStored())
            return true;
        for (let attempt = 0; attempt < 2; attempt++) {
            const presented = this.deps.tokens.tokens;
            if (!presented)
                return false;
            const answer = await this.deps.refreshCall(presented.refresh);
            // The session changed while the call was out (a logout ended it, a login replaced it): the answer belongs to
            // the old one, and taking it would bring that session back.
            if (this.deps.tokens.tokens?.refresh !== presented.refresh)
                return this.deps.tokens.tokens !== null;
            if (answer.status === 200) {
                await this.store(answer.body);
                return true;
            }
            if (answer.status !== 401 && answer.status !== 400) {
                this.schedule(Math.min(RETRY_MS, (retryAfterSeconds(answer.body) ?? RETRY_MS / 1000) * 1000));
                throw new ApiError(answer.status, answer.body, 'accounts.refresh');
            }
            // Refused: another client may have rotated the token first. Read the storage again and go on from its copy.
            if (attempt === 0 && (await this.adoptNewerStored(presented.refresh)))
                return true;
            if (this.deps.tokens.tokens?.refresh === presented.refresh)
                break;
        }
        await this.end('revoked');
        return false;
    }
    /**
     * Take the stored tokens when another client has rotated ours. true: they are fresh enough to use as they are
     * (the socket is handed the access token); false: nothing newer, or newer but due for renewal too (then adopted,
     * and the caller refreshes with them).
     */
    async adoptNewerStored(than = this.deps.tokens.tokens?.refresh) {
        const stored = await this.deps.tokens.read();
        if (!stored || stored.refresh === than)
            return false;
        this.deps.tokens.adopt(stored);
        if (this.refused || this.dueAt(stored) <= Date.now())
            return false;
        await this.handToSocket(stored);
        this.schedule();
        this.deps.renewed(stored);
        return true;
    }
    async store(answer) {
        const receivedAt = Date.now();
        const tokens = { access: answer.access_token, refresh: answer.refresh_token, receivedAt };
        const { iat } = claimsOf(tokens.access);
        if (typeof iat === 'number')
            this.deps.clock.observe(iat * 1000, receivedAt);
        await this.deps.tokens.save(tokens);
        this.refused = false;
        await this.handToSocket(tokens);
        this.schedule();
        this.deps.renewed(tokens);
    }
    /** A live socket takes the new access token (auth:renew). A refusal of a token just issued means the session is over. */
    async handToSocket(tokens) {
        let ack;
        try {
            ack = await this.deps.renewSocket(tokens.access);
        }
        catch {
            return; // the socket went away: its next handshake carries the new token
        }
        if (!ack || ack.status === 200)
            return;
        if (ack.status === 401) {
            this.refused = true;
            return;
        }
        // 503: the service could not check it now; the socket's current token runs on meanwhile. Try again shortly.
        const wait = (retryAfterSeconds(ack.body) ?? 5) * 1000;
        const retry = setTimeout(() => {
            if (!this.closed && this.deps.tokens.tokens === tokens)
                void this.handToSocket(tokens);
        }, wait);
        unref(retry);
    }
    /** When to renew these tokens (local ms): a share of the lifetime before expiry, spread a little between clients. */
    dueAt(tokens) {
        const margin = Math.min(RENEW_AT_MOST_MS, lifetimeMs(tokens) * RENEW_SHARE) * (1 + Math.random());
        return expiresAtLocal(tokens) - margin;
    }
    schedule(delayMs) {
        this.clearTimer();
        const tokens = this.deps.tokens.tokens;
        if (this.closed || !tokens)
            return;
        const delay = delayMs ?? Math.max(0, this.dueAt(tokens) - Date.now());
        // Timers are 32-bit: a token of weeks is looked at again after 24 days.
        this.timer = setTimeout(() => {
            this.timer = null;
            this.refresh().catch(() => undefined);
        }, Math.min(delay, 2 ** 31 - 1));
        unref(this.timer);
    }
    clearTimer() {
        if (this.timer)
            clearTimeout(this.timer);
        this.timer = null;
    }
    withLock(work) {
        const locks = globalThis.navigator?.locks;
        return locks ? locks.request(this.deps.lockName, work) : work();
    }
}
/**
 * A renewal alone does not keep a Node process running (a script that made its calls may end); an open socket does.
 * Browsers' timers are numbers and have nothing to release.
 */
function unref(timer) {
    timer?.unref?.();
}
