/**
 * The one error a call rejects with: the service's answer (`status`, `body` as REST and the socket give them), or,
 * with `status` 0, no answer at all (the network, or a socket lost before its ack came).
 */
export class ApiError extends Error {
    status;
    body;
    operation;
    name = 'ApiError';
    constructor(status, body, 
    /** The operation (or socket event) that failed. */
    operation) {
        super(`${operation ?? 'request'} answered ${status}${summary(body)}`);
        this.status = status;
        this.body = body;
        this.operation = operation;
    }
}
/** No answer came: the body says why, in the service's `{detail}` shape. */
export const noAnswer = (operation, why) => new ApiError(0, { detail: why }, operation);
function summary(body) {
    if (body === null || body === undefined)
        return '';
    try {
        const text = typeof body === 'string' ? body : JSON.stringify(body);
        return `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
    }
    catch {
        return '';
    }
}
