import { z } from 'zod';

/**
 * Response shapes shared by every resource, for the OpenAPI document (operations declare their bodies
 * in `responses`; src/http/openapi.ts turns them into JSON Schema). Ids become component names.
 */
const zAbsoluteUrl = () => z.string().describe('Absolute URL carrying page and page_size');

/** The contract's page envelope around `item`. */
export const zPaginated = <T extends z.ZodType>(item: T) =>
  z.object({ count: z.number().int(), next: zAbsoluteUrl().nullable(), previous: zAbsoluteUrl().nullable(), results: z.array(item) });

export const zDetailError = z.object({ detail: z.string() }).meta({ id: 'DetailError', description: 'A general error: `{detail}`.' });

export const zFieldErrors = z.record(z.string(), z.array(z.string())).meta({ id: 'FieldErrors', description: 'Validation errors: `{field: [message]}` or `{non_field_errors: [message]}`.' });

/** What a 400 may carry: field errors, or a `{detail}`/`{error}` about a body that could not be read or a rule of the resource. */
export const zBadRequest = z.union([zFieldErrors, zDetailError, z.looseObject({ error: z.string() })]).meta({ id: 'BadRequest' });
