import type { RequestContext } from './context.js';
import type { Operation, OperationResult, RateLimitRule } from './operation.js';
import { AppError, INTERNAL_ERROR_BODY, forbidden, invalidToken, notAuthenticated, notFound } from './errors.js';
import { nulFieldErrors, zodToFieldErrors } from './validation.js';
import { isDatabaseUnavailable, serviceUnavailable } from './database-errors.js';
import type { RateLimits } from './rate-limit.js';
import { effectiveRateLimits, isCallerKeyed, type DefaultRateLimits } from './operation-limits.js';

/**
 * The single place where the house rules of an operation are enforced, for REST and socket alike:
 * admission (auth rule, rate limits keyed by the caller) → no NUL character anywhere in the input → rate limits
 * keyed by the input → zod validation → handler, and every failure rendered in the contract's error format. Transports only
 * translate `{status, body}` to their own wire.
 *
 * Admission needs nothing from the input, so a transport that has to read a body (REST multipart)
 * runs it first with `admitOperation` and then `runAdmittedOperation`: a caller that may not call the
 * operation, or has spent its budget, is refused before a byte of its body is read.
 */
export interface OperationRunner {
  rateLimits: RateLimits;
  /** Limits of operations that declare none per caller (operation-limits.ts); built-in defaults when absent. */
  defaultLimits?: DefaultRateLimits;
  onUnexpectedError: (err: unknown, op: Operation, ctx: RequestContext) => void;
  /** Told of every answered call, refusals included, with the seconds since the transport received it. */
  onAnswered?: (op: Operation, ctx: RequestContext, status: number, seconds: number) => void;
}

/** Admission, then the rest: what a transport that already holds the whole input calls. */
export async function runOperation(runner: OperationRunner, op: Operation, rawInput: unknown, ctx: RequestContext): Promise<OperationResult> {
  const refusal = await admitOperation(runner, op, ctx);
  return refusal ?? runAdmittedOperation(runner, op, rawInput, ctx);
}

/**
 * The checks that need only the caller: the auth rule and the rate limits counted per IP or user.
 * null: admitted; otherwise the refusal to send. Each admitted call is counted once, here.
 */
export async function admitOperation(runner: OperationRunner, op: Operation, ctx: RequestContext): Promise<OperationResult | null> {
  try {
    checkAuth(op, ctx);
    for (const rule of effectiveRateLimits(op, runner.defaultLimits).filter(isCallerKeyed)) {
      const key = rule.key === 'ip' ? ctx.ip : (ctx.user?.id ?? ctx.ip);
      if (key) await runner.rateLimits.consume(`${op.name}:${rule.name}`, key, rule.points, rule.durationSeconds);
    }
    return null;
  } catch (err) {
    return failure(runner, op, ctx, err);
  }
}

/** Everything after admission; call it only for a call `admitOperation` admitted. */
export async function runAdmittedOperation(runner: OperationRunner, op: Operation, rawInput: unknown, ctx: RequestContext): Promise<OperationResult> {
  try {
    const input = rawInput && typeof rawInput === 'object' && !Array.isArray(rawInput) ? (rawInput as Record<string, unknown>) : {};
    // Before the rate limits keyed by the input, which may look the input up in the database.
    const nul = nulFieldErrors(input);
    if (nul) return { status: 400, body: nul };
    for (const rule of op.rateLimits ?? []) {
      if (isCallerKeyed(rule)) continue;
      const key = await (rule.key as Exclude<RateLimitRule['key'], 'ip' | 'user'>)(input, ctx);
      if (key) await runner.rateLimits.consume(`${op.name}:${rule.name}`, key, rule.points, rule.durationSeconds);
    }
    const parsed = await op.input.safeParseAsync(input);
    if (!parsed.success) return { status: 400, body: zodToFieldErrors(parsed.error) };
    return await op.handler(parsed.data, ctx);
  } catch (err) {
    return failure(runner, op, ctx, err);
  }
}


function failure(runner: OperationRunner, op: Operation, ctx: RequestContext, err: unknown): OperationResult {
  if (isDatabaseUnavailable(err)) {
    // Logged like a failure (someone should look at a slow statement or a full pool), answered 503.
    runner.onUnexpectedError(err, op, ctx);
    const unavailable = serviceUnavailable();
    return { status: unavailable.status, body: unavailable.body, headers: unavailable.headers };
  }
  const appError = asAppError(err);
  if (appError) return { status: appError.status, body: appError.body, headers: appError.headers };
  runner.onUnexpectedError(err, op, ctx);
  return { status: 500, body: INTERNAL_ERROR_BODY };
}

function checkAuth(op: Operation, ctx: RequestContext): void {
  if (op.auth === 'public') return;
  // A token that does not verify is refused even where a token is optional: the client must
  // learn that its session is gone rather than silently see an anonymous view.
  if (ctx.authError) throw invalidToken();
  if (op.auth === 'optional') return;
  if (!ctx.user) throw notAuthenticated();
  if (op.auth === 'staff' && !ctx.user.isStaff && !ctx.user.isAdmin) throw forbidden();
  if (op.auth === 'admin' && !ctx.user.isAdmin) throw forbidden();
}

/**
 * Errors the database reports about the input (bad enum text, numeric overflow, text too long, a NUL
 * character that PostgreSQL text cannot hold, a date it cannot read or hold, such as year 0) are the caller's fault.
 */
const CALLER_VALUE_ERRORS = new Set(['22P02', '22003', '22001', '22021', '22007', '22008']);
function asAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  const code = (err as { code?: unknown; cause?: { code?: unknown } })?.code ?? (err as { cause?: { code?: unknown } })?.cause?.code;
  if (CALLER_VALUE_ERRORS.has(String(code))) return new AppError(400, { detail: 'Invalid value.' });
  // A foreign key that found its row gone: something the request names was deleted while it ran (an account
  // deleted under its own last request, a post deleted under a like).
  if (code === '23503') return notFound();
  return null;
}
