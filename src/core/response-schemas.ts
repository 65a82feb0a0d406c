import { z } from 'zod';

/**
 * Response shapes shared by every resource, for the OpenAPI document (operations declare their bodies
 * in `responses`; src/http/openapi.ts turns them into JSON Schema). Ids become component names.
 */
const zAbsoluteUrl = () => z.string().describe('Absolute URL carrying page and page_size');

/** The contract's page envelope around `item`. */
export const zPaginated = <T extends z.ZodType>(item: T) =>
  z.object({ count: z.number().int(), next: zAbsoluteUrl().nullable(), previous: zAbsoluteUrl().nullable(), results: z.array(item) });

export const zDetailError = z
  .object({
    detail: z.string(),
    code: z.string().optional().describe("A machine-readable reason where one exists ('token_not_valid': sign in again or refresh)"),
  })
  .meta({ id: 'DetailError', description: 'A general error: `{detail}`, with `code` where the client must act on the reason.' });

/** The `{error, ...}` form of the contract's general errors (`{error: 'Invalid credentials'}`, `{error, retry_after}`). */
export const zErrorMessage = z.looseObject({ error: z.string() }).meta({ id: 'ErrorMessage', description: 'A general error in the `{error}` form, sometimes with more about it.' });

/** Any error but a 400: `{detail}` (with `code` where it matters) or `{error}`. */
export const zGeneralError = z.union([zDetailError, zErrorMessage]).meta({ id: 'GeneralError' });

/** A 503: the database is out of reach or out of time; over the socket with `retry_after` (seconds), over REST in `Retry-After`. */
export const zUnavailable = zDetailError.extend({ retry_after: z.number().int().optional() }).meta({ id: 'Unavailable' });

/** A 204 answer: no body (the generator documents the status without content). */
export const zNoContent = z.null().meta({ description: 'No content' });

export const zFieldErrors = z.record(z.string(), z.array(z.string())).meta({ id: 'FieldErrors', description: 'Validation errors: `{field: [message]}` or `{non_field_errors: [message]}`.' });

/** What a 400 may carry: field errors, or a `{detail}`/`{error}` about a body that could not be read or a rule of the resource. */
export const zBadRequest = z.union([zFieldErrors, zDetailError, zErrorMessage]).meta({ id: 'BadRequest' });
