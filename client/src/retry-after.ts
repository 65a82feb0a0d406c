/**
 * How long the service asked a caller to wait. REST says it in `Retry-After` (seconds); a socket ack has no
 * headers, so its 503 body carries `retry_after` and its 429 body the contract's sentence "Expected available in N
 * seconds". null: the answer named no wait.
 */
export function retryAfterSeconds(body: unknown, header?: string | null): number | null {
  const fromHeader = header ? Number(header) : NaN;
  if (Number.isFinite(fromHeader) && fromHeader >= 0) return fromHeader;
  if (body && typeof body === 'object') {
    const retry = (body as { retry_after?: unknown }).retry_after;
    if (typeof retry === 'number' && retry >= 0) return retry;
    const detail = (body as { detail?: unknown }).detail;
    const match = typeof detail === 'string' ? /available in (\d+(?:\.\d+)?) second/.exec(detail) : null;
    if (match) return Number(match[1]);
  }
  return null;
}

/** Statuses that mean "not now": tried again after the wait the service names, up to the client's limits. */
export const isRetryable = (status: number): boolean => status === 429 || status === 503;
