/**
 * How long the service asked a caller to wait. REST says it in `Retry-After` (seconds); a socket ack has no
 * headers, so its 503 body carries `retry_after` and its 429 body the contract's sentence "Expected available in N
 * seconds". null: the answer named no wait.
 */
export declare function retryAfterSeconds(body: unknown, header?: string | null): number | null;
/** Statuses that mean "not now": tried again after the wait the service names, up to the client's limits. */
export declare const isRetryable: (status: number) => boolean;
