/**
 * The one error a call rejects with: the service's answer (`status`, `body` as REST and the socket give them), or,
 * with `status` 0, no answer at all (the network, or a socket lost before its ack came).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly body: unknown,
    /** The operation (or socket event) that failed. */
    readonly operation?: string,
  ) {
    super(`${operation ?? 'request'} answered ${status}${summary(body)}`);
  }
}

/** No answer came: the body says why, in the service's `{detail}` shape. */
export const noAnswer = (operation: string, why: string): ApiError => new ApiError(0, { detail: why }, operation);

function summary(body: unknown): string {
  if (body === null || body === undefined) return '';
  try {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
  } catch {
    return '';
  }
}
