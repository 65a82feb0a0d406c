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
/** The field error of a call refused by dotPathParameter (the service's 400 body shape: `{[parameter]: [message]}`). */
export declare const DOT_PATH_PARAMETER = "Not a valid path parameter: \".\" and \"..\" name no item.";
/**
 * The path parameter of `input` that a URL would read as a step instead of a name, if any: `.` or `..` as a whole
 * segment (`new URL` resolves `/api/feed/posts/../` to `/api/feed/`, another operation). Such a value can never be
 * sent as a path parameter (the URL standard reads `%2e` as a dot too), so the call is refused before anything is
 * sent. Other values are percent-encoded whole (`%2e` typed by someone goes as `%252e`, a name).
 */
export declare function dotPathParameter(route: OperationRoute, input: Record<string, unknown>): string | null;
export declare function restCall(req: RestRequest): Promise<RestAnswer>;
/** Whether the input carries a file in one of the operation's file fields: such a call goes over REST. */
export declare function hasFile(route: OperationRoute, input: Record<string, unknown>): boolean;
