/**
 * The session's tokens: in memory, and in `storage` when the app gives one (localStorage, AsyncStorage, a file:
 * anything with getItem/setItem/removeItem, synchronous or not). Stored as one JSON item, so a reader never sees
 * an access token of one rotation beside the refresh token of another.
 */
export interface StorageLike {
  getItem(key: string): string | null | undefined | Promise<string | null | undefined>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

export interface Tokens {
  access: string;
  refresh: string;
  /** When this copy was received (local ms): with the token's own iat and exp, how long it lives here. */
  receivedAt: number;
}

interface Claims {
  iat?: number;
  exp?: number;
  sub?: string;
}

/** The claims of a JWT, unverified (the server verifies; the client only needs to know when it runs out). */
export function claimsOf(token: string): Claims {
  try {
    const part = token.split('.')[1] ?? '';
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    const claims = JSON.parse(json) as Claims;
    return claims && typeof claims === 'object' ? claims : {};
  } catch {
    return {};
  }
}

/**
 * When the access token runs out, on this machine's clock: its lifetime (exp − iat, both the server's) counted from
 * when it arrived, so a phone whose clock is minutes off still renews in time. iat and exp are whole seconds and iat
 * is rounded down: the token may have been issued up to a second after iat, so a second less is counted.
 */
export function expiresAtLocal(tokens: Tokens): number {
  const { iat, exp } = claimsOf(tokens.access);
  if (typeof exp !== 'number') return Number.POSITIVE_INFINITY;
  if (typeof iat !== 'number') return exp * 1000;
  return tokens.receivedAt + (exp - iat) * 1000 - 1000;
}

export function lifetimeMs(tokens: Tokens): number {
  const { iat, exp } = claimsOf(tokens.access);
  return typeof iat === 'number' && typeof exp === 'number' ? (exp - iat) * 1000 : Number.POSITIVE_INFINITY;
}

export class TokenStore {
  private current: Tokens | null = null;

  constructor(
    private readonly storage: StorageLike | undefined,
    private readonly key: string,
  ) {}

  get tokens(): Tokens | null {
    return this.current;
  }

  /** What the storage holds now (another tab or client may have rotated the tokens); null without storage. */
  async read(): Promise<Tokens | null> {
    if (!this.storage) return null;
    try {
      const raw = await this.storage.getItem(this.key);
      if (!raw) return null;
      const parsed = JSON.parse(raw) as Partial<Tokens>;
      if (typeof parsed.access !== 'string' || typeof parsed.refresh !== 'string') return null;
      return { access: parsed.access, refresh: parsed.refresh, receivedAt: typeof parsed.receivedAt === 'number' ? parsed.receivedAt : Date.now() };
    } catch {
      return null;
    }
  }

  /** Take the stored tokens as ours (at start, or when another client rotated them). */
  adopt(tokens: Tokens | null): void {
    this.current = tokens;
  }

  async save(tokens: Tokens): Promise<void> {
    this.current = tokens;
    await this.storage?.setItem(this.key, JSON.stringify(tokens));
  }

  /**
   * Forget the session. The stored copy goes only if it is still ours: another client that signed in again meanwhile
   * keeps its session.
   */
  async clear(): Promise<void> {
    const mine = this.current;
    this.current = null;
    if (!this.storage) return;
    const stored = await this.read();
    if (!stored || !mine || stored.refresh === mine.refresh) await this.storage.removeItem(this.key);
  }
}
