import type { z } from 'zod';
import type { AuthedContext, RequestContext } from './context.js';

/**
 * An endpoint of the contract, defined once and served by both transports (DESIGN.md section 4).
 * `src/http` mounts it as an Express route, `src/realtime` as a Socket.IO event of the same name,
 * and the OpenAPI document is generated from the same definition.
 */
export type AuthRule = 'public' | 'optional' | 'user' | 'staff' | 'admin';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** Error statuses an operation may declare in `errors` (all answered with the contract's error bodies). */
export type ErrorStatus = 401 | 403 | 404 | 409 | 410 | 422 | 423 | 429;

export interface CookieInstruction {
  name: string;
  /** null clears the cookie. */
  value: string | null;
  maxAgeSeconds?: number;
}

export interface OperationResult<B = unknown> {
  status: number;
  body: B;
  headers?: Record<string, string>;
  /** Cookies to set in browsers; the socket transport has no cookies and ignores them. */
  cookies?: CookieInstruction[];
  /**
   * The operation ended the caller's session (logout): the socket transport signs the socket that called
   * it out (it becomes anonymous); REST has nothing to do beyond the cookies.
   */
  endsSession?: boolean;
}

export interface RateLimitRule {
  /** A short name, unique within the operation (part of the limiter key). */
  name: string;
  points: number;
  durationSeconds: number;
  /**
   * What is counted: the caller's IP, the user, or a key derived from the raw input (e.g. the account);
   * a derived key may need a lookup, hence may be a promise. null: not counted.
   */
  key: 'ip' | 'user' | ((input: Record<string, unknown>, ctx: RequestContext) => string | null | Promise<string | null>);
}

export interface FileField {
  name: string;
  maxCount: number;
  maxBytes: number;
}

/** Operations that require a user get a context whose `user` is known to be set. */
export type ContextFor<A extends AuthRule> = A extends 'user' | 'staff' | 'admin' ? AuthedContext : RequestContext;

export interface Operation<S extends z.ZodType = z.ZodType, A extends AuthRule = AuthRule> {
  name: string;
  method: HttpMethod;
  /** Contract path with `{param}` placeholders, e.g. `/api/feed/posts/{post_id}/`. */
  path: string;
  auth: A;
  summary: string;
  tags: string[];
  input: S;
  /**
   * Where REST clients put the fields that are not path parameters, for the OpenAPI document: the query string for
   * GET and DELETE by default, a body otherwise. A DELETE that takes a secret (a password) says `body`: query strings
   * are written to access logs. (The REST transport reads both, whatever this says.)
   */
  inputIn?: 'query' | 'body';
  /** Multipart file fields accepted over REST; the files arrive in the input under these names. */
  files?: FileField[];
  rateLimits?: RateLimitRule[];
  /**
   * The success bodies by status (e.g. `{ 200: zUserBody }`, `{ 204: zNoContent }`), for the OpenAPI document and
   * the generated client's types. Every operation of the registry declares at least one
   * (tests/unit/openapi-document.test.ts); only the throwaway operations of tests go without.
   */
  responses?: Partial<Record<number, z.ZodType>>;
  /**
   * The error statuses the handler itself can answer (403 of an ownership or block check, 404 of a resource named in
   * the body, 409, 401 of a login...), beyond those the generator derives: 400 for every operation, 401 for signed-in
   * ones, 403 for staff ones, 404 for path parameters and pages, 429 for rate limits, 413, 415, 500 and 503 for every
   * operation.
   * The test suite checks every answer against the document, so a status missing here fails the test that causes it.
   */
  errors?: readonly ErrorStatus[];
  /**
   * The success body's media type when it is not JSON (e.g. `text/calendar`): the handler answers the body as text
   * with a Content-Type header; REST sends the text as it is, the socket acks it as the body.
   */
  produces?: string;
  handler: (input: z.output<S>, ctx: ContextFor<A>) => Promise<OperationResult>;
}

/** runOperation checks the auth rule before the handler runs, which is what makes ContextFor safe. */
export function defineOperation<S extends z.ZodType, A extends AuthRule>(op: Operation<S, A>): Operation {
  return op as unknown as Operation;
}

export const ok = <B>(body: B, status = 200): OperationResult<B> => ({ status, body });
export const created = <B>(body: B): OperationResult<B> => ({ status: 201, body });
export const noContent = (): OperationResult<null> => ({ status: 204, body: null });
