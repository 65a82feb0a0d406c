/**
 * An estimate of the server's clock, never ahead of it. realtime.sync takes a `since` on the server's clock, and a
 * phone's clock may be minutes off: a `since` ahead of the server's would skip what was missed. Every server
 * timestamp the client sees is at most the server's time when it arrived, so `arrival − timestamp` bounds the
 * offset (local − server) from above; the smallest such bound is the best. Unknown until a first observation.
 */
export class ServerClock {
  private offsetUpper = Number.POSITIVE_INFINITY;

  /** A server time (ISO text or ms) seen at local time `at`. */
  observe(serverTime: string | number | null | undefined, at = Date.now()): void {
    const ms = typeof serverTime === 'number' ? serverTime : typeof serverTime === 'string' ? Date.parse(serverTime) : NaN;
    if (Number.isFinite(ms)) this.offsetUpper = Math.min(this.offsetUpper, at - ms);
  }

  /** The server's time at local time `local`, or earlier; without any observation, assume a minute of skew. */
  serverTimeAt(local: number): number {
    return local - (Number.isFinite(this.offsetUpper) ? this.offsetUpper : UNKNOWN_SKEW_MS);
  }
}

const UNKNOWN_SKEW_MS = 60_000;

/** The timestamps of a pushed payload that say when it was made on the server. */
export function payloadTime(payload: unknown): string | undefined {
  if (!payload || typeof payload !== 'object') return undefined;
  const p = payload as { updated_at?: unknown; created_at?: unknown; read_at?: unknown };
  for (const value of [p.updated_at, p.created_at, p.read_at]) if (typeof value === 'string') return value;
  return undefined;
}
