import type { OperationRoute } from './generated/api.js';
/**
 * One operation over REST, built from its route: path parameters into the path, the rest of the flat input into
 * the query (GET) or the body (JSON; multipart when a file is in it). The answer is kept as it came; the caller
 * decides what an error status means.
 */
export interface RestAnswer {
    status: number;
    body: unknown;
    /** Retry-After, as sent. */
    retryAfter: string | null;
    /** The Date header, as sent (the client's estimate of the server's clock uses it). */
    date: string | null;
}
export interface RestRequest {
    baseUrl: string;
    route: OperationRoute;
    input: Record<string, unknown>;
    token?: string | null;
    headers?: Record<string, string>;
    fetch: typeof fetch;
    signal?: AbortSignal;
}
export declare function restCall(req: RestRequest): Promise<RestAnswer>;
/** Whether the input carries a file in one of the operation's file fields: such a call goes over REST. */
export declare function hasFile(route: OperationRoute, input: Record<string, unknown>): boolean;
