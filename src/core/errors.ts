/**
 * The one error type of the service. Anything a handler throws is turned into an AppError
 * by `toAppError`, and `status` + `body` are sent as they are over both transports, so the
 * body must already be in one of the contract's formats:
 *   field errors        {field: [message]} / {non_field_errors: [message]}
 *   general errors      {detail: message} or {error: message, ...}
 */
export type ErrorBody = Record<string, unknown>;

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : typeof body.error === 'string' ? body.error : `HTTP ${status}`);
    this.name = 'AppError';
  }
}

export const MESSAGES = {
  notAuthenticated: 'Authentication credentials were not provided.',
  invalidToken: 'Given token not valid for any token type',
  forbidden: 'You do not have permission to perform this action.',
  notFound: 'Not found.',
  invalidUuid: 'Invalid UUID format.',
  invalidPage: 'Invalid page.',
} as const;

export const notFound = (detail: string = MESSAGES.notFound) => new AppError(404, { detail });
export const forbidden = (detail: string = MESSAGES.forbidden) => new AppError(403, { detail });
export const notAuthenticated = () => new AppError(401, { detail: MESSAGES.notAuthenticated });
export const invalidToken = () => new AppError(401, { detail: MESSAGES.invalidToken, code: 'token_not_valid' });
export const badRequest = (body: ErrorBody) => new AppError(400, body);

/** `fieldError('slug', 'This store identifier is already taken.')` → 400 {slug: [...]} */
export const fieldError = (field: string, message: string) => new AppError(400, { [field]: [message] });
export const nonFieldError = (message: string) => fieldError('non_field_errors', message);

export function throttled(retryAfterSeconds: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AppError(
    429,
    { detail: `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.` },
    { 'Retry-After': String(seconds) },
  );
}

export const INTERNAL_ERROR_BODY = { detail: 'A server error occurred.' };
