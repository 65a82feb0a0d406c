/**
 * The one error a call rejects with: the service's answer (`status`, `body` as REST and the socket give them), or,
 * with `status` 0, no answer at all (the network, or a socket lost before its ack came).
 */
export declare class ApiError extends Error {
    readonly status: number;
    readonly body: unknown;
    /** The operation (or socket event) that failed. */
    readonly operation?: string | undefined;
    readonly name = "ApiError";
    constructor(status: number, body: unknown, 
    /** The operation (or socket event) that failed. */
    operation?: string | undefined);
}
/** No answer came: the body says why, in the service's `{detail}` shape. */
export declare const noAnswer: (operation: string, why: string) => ApiError;
